// `svc vault export` and `svc vault import` as a person runs them (the built bin as a child
// process) against a listening server: the export streamed to disk and checked with `unzip -t`,
// imported into an empty second workspace with --yes, files byte for byte; a CSV previewed and
// refused naming its line (exit 1), nothing written. The session is written to the device's
// sessions file as `svc login` leaves it (the sign-in itself is tested in device.test.ts).
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { ensureCliBuilt, type Svc, svc } from "../helpers/svc-cli.ts";
import { createSection, createValue, RECORDS, uploadFile } from "../shares/helpers.ts";
import { fileBytes, sha, vaultOf } from "../transfer/helpers.ts";

const run = promisify(execFile);

describe("svc vault export and import", () => {
	let t: TestApp;
	let owner: TestAccount;
	let empty: string;
	let origin: string;
	let cli: Svc;
	let dir: string;
	const scan = crypto.randomBytes(200_000);

	before(async () => {
		ensureCliBuilt();
		t = await makeApp();
		await t.app.listen({ port: 0, host: "127.0.0.1" });
		origin = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
		owner = await buildAccount(t.app, { name: "Ada" });
		const people = await createSection(t.app, owner, "people");
		const email = await createValue(t.app, owner, {
			key: "email",
			value: "ada@example.org",
			section: people.id,
		});
		await createValue(t.app, owner, { key: "contact", alias: email.id });
		await uploadFile(t.app, owner, { key: "scan" }, { bytes: scan, name: "scan.bin" });
		const made = await t.app.inject({
			method: "POST",
			url: "/api/collections/workspaces/records",
			headers: owner.headers,
			payload: { name: "Empty" },
		});
		assert.equal(made.statusCode, 200, made.body);
		empty = made.json().id;
		dir = fs.mkdtempSync(path.join(os.tmpdir(), "svc-transfer-"));
		cli = svc(dir);
		fs.writeFileSync(
			path.join(dir, "sessions.json"),
			JSON.stringify({
				current: origin,
				servers: {
					[origin]: {
						token: owner.token,
						account: { id: owner.accountId, email: owner.email, name: "Ada" },
						signedInAt: new Date().toISOString(),
					},
				},
			}),
			{ mode: 0o600 },
		);
	});
	after(async () => {
		await t?.close();
		if (dir) fs.rmSync(dir, { recursive: true, force: true });
	});

	test("export to disk, unzip -t, import into an empty workspace with --yes: the same vault", async () => {
		const out = path.join(dir, "mine.zip");
		const exported = await cli.run(["vault", "export", "-o", out]);
		assert.equal(exported.code, 0, exported.stderr);
		assert.match(exported.stdout, /^Saved .*mine\.zip: .*sha256 [0-9a-f]{64}/);
		assert.match((await run("unzip", ["-t", out])).stdout, /No errors detected/);

		const preview = await cli.run(["vault", "import", out, "--preview", "--workspace", empty]);
		assert.equal(preview.code, 0, preview.stderr);
		assert.match(preview.stdout, /Would make 3 entries \(1 files, .*\), 1 new sections, 0 templates/);

		const imported = await cli.run(["vault", "import", out, "--yes", "--workspace", empty, "--json"]);
		assert.equal(imported.code, 0, imported.stderr);
		assert.equal(JSON.parse(imported.stdout).counts.entries, 3);
		const inEmpty = { ...owner, headers: { ...owner.headers, "x-workspace": empty } };
		const copy = await vaultOf(t.app, inEmpty);
		assert.deepEqual(copy.entries, (await vaultOf(t.app, owner)).entries);
		assert.equal(sha(await fileBytes(t.app, inEmpty, (copy.fileIds[0] as { id: string }).id)), sha(scan));
	});

	test("a CSV with a bad line: the preview names it, the import refuses it, exit 1, nothing written", async () => {
		const csv = path.join(dir, "entries.csv");
		fs.writeFileSync(csv, "key,value\nphone,+49 30 1234\nNo Good,x\n");
		const before = await t.app.inject({ method: "GET", url: RECORDS, headers: owner.headers });
		const preview = await cli.run(["vault", "import", csv, "--preview"]);
		assert.equal(preview.code, 1);
		assert.match(preview.stderr, /line 3: key "No Good" is not/);
		const forced = await cli.run(["vault", "import", csv, "--yes"]);
		assert.equal(forced.code, 1);
		assert.match(forced.stderr, /line 3: key "No Good"/);
		const after = await t.app.inject({ method: "GET", url: RECORDS, headers: owner.headers });
		assert.equal(after.json().totalItems, before.json().totalItems);
		const unknown = await cli.run(["vault", "import", path.join(dir, "sessions.json")]);
		assert.equal(unknown.code, 2);
		assert.match(unknown.stderr, /--format archive, vcard or csv/);
	});
});
