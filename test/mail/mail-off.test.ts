// With SMTP_URL unset, mail is off and nothing changes (issue 41): no module of src/features/mail
// nor nodemailer is ever loaded (a resolve hook registered before the app's first import records
// every module the process loads, from src/ or compiled in dist/src/; the same hook sees the mail modules once an app with mail is
// built, so the check can fail); the mail switches cannot be turned on (403 `mail_disabled`), an
// invitation cannot ask for a mail, and the mail routes do not exist.
// Runs alone in its process: it asserts which modules the whole process loaded.
import assert from "node:assert/strict";
import { register } from "node:module";
import { after, before, test } from "node:test";
import { MessageChannel } from "node:worker_threads";

const loaded: string[] = [];
const { port1, port2 } = new MessageChannel();
/** settle()'s markers, by the text that names each, waiting to be reported. */
const markers = new Map<string, () => void>();
port1.on("message", (url: string) => {
	loaded.push(url);
	for (const [mark, seen] of markers) if (url.includes(mark)) seen();
});
port1.unref();
const hook = `
let port;
export function initialize(data) { port = data.port; }
export async function resolve(specifier, context, next) {
	const r = await next(specifier, context);
	port.postMessage(r.url);
	return r;
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`, {
	data: { port: port2 },
	transferList: [port2],
});

// Imported only now, so the hook sees the app's whole module graph.
const { makeApp } = await import("../helpers/app.ts");
const { buildAccount } = await import("../helpers/factories.ts");

const isMail = (url: string) => /\/src\/features\/mail\/|\/node_modules\/nodemailer\//.test(url);
let marks = 0;
/**
 * Waits until every module resolved so far has been reported: imports a module of its own (a
 * comment, new each time) and waits for the hook to report it. The hook reports each module once
 * its resolve is done, on one port, in order, and every import before this one has resolved, so
 * their reports have come by the time this one does.
 */
async function settle(): Promise<void> {
	const mark = `settle-marker-${++marks}`;
	const seen = new Promise<void>((resolve) => markers.set(mark, resolve));
	port1.ref(); // an unref'd port alone would let the loop end while its message is on the way
	try {
		await import(`data:text/javascript,/*${mark}*/`);
		await seen;
	} finally {
		port1.unref();
		markers.delete(mark);
	}
}

let t: Awaited<ReturnType<typeof makeApp>>;
before(async () => {
	t = await makeApp();
});
after(() => t.close());

test("mail off: the switches stay off, an invitation cannot ask for mail, the mail routes do not exist", async () => {
	const owner = await buildAccount(t.app);
	const settings = await t.app.inject({
		method: "GET",
		url: "/api/notifications/settings",
		headers: owner.headers,
	});
	assert.equal(settings.json().mailOn, false);
	assert.ok(Object.values(settings.json().mail).every((v) => v === false));
	const on = await t.app.inject({
		method: "PATCH",
		url: "/api/notifications/settings",
		headers: owner.headers,
		payload: { mail: { link_revoked: true } },
	});
	assert.equal(on.statusCode, 403, on.body);
	assert.equal(on.json().code, "mail_disabled");
	const invite = await t.app.inject({
		method: "POST",
		url: "/api/collections/invitations/records",
		headers: owner.headers,
		payload: { email: "x@example.org", role: "viewer", sendEmail: true },
	});
	assert.equal(invite.statusCode, 403, invite.body);
	assert.equal(invite.json().code, "mail_disabled");
	const plain = await t.app.inject({
		method: "POST",
		url: "/api/collections/invitations/records",
		headers: owner.headers,
		payload: { email: "x@example.org", role: "viewer" },
	});
	assert.equal(plain.statusCode, 200, "without sendEmail an invitation is made as before");
	assert.equal(plain.headers["x-mail-id"], undefined);
	for (const url of ["/api/auth/email/verify", "/api/auth/email/confirm", "/api/requests/x/send-link"]) {
		const res = await t.app.inject({ method: "POST", url, headers: owner.headers, payload: {} });
		assert.equal(res.statusCode, 404, url);
	}
	await t.app.background.drainOnce(t.app.clock.now());
	const rows = await t.app.store.db.selectFrom("mail_outbox").select("id").execute();
	assert.equal(rows.length, 0);
});

test("mail off: no mail module and no nodemailer is loaded; with mail on they are", async () => {
	await settle();
	assert.ok(
		loaded.some((u) => /\/src\/features\/invitations\/collection\.[jt]s$/.test(u)),
		"the hook saw the app's modules",
	);
	assert.deepEqual(loaded.filter(isMail), []);
	const withMail = await makeApp({ smtpUrl: "smtp://u:p@127.0.0.1:1", mailFrom: "svc@localhost" });
	await withMail.close();
	await settle();
	assert.ok(loaded.some((u) => /\/src\/features\/mail\/service\.[jt]s$/.test(u)));
	assert.ok(loaded.some((u) => u.includes("/node_modules/nodemailer/")));
});
