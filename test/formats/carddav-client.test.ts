// A real CardDAV client we did not write (tsdav) against the addressbook on a listening server:
// it discovers the book from the share's address alone, lists exactly one card holding the
// share's current values, sees a change through the ctag, and finds no book behind a password.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { DAVClient } from "tsdav";
import { makeApp, type TestApp } from "../helpers/app.ts";
import { buildAccount, type TestAccount } from "../helpers/factories.ts";
import { createLink, createValue, RECORDS } from "../shares/helpers.ts";
import { type ContactShare, contactShare, vcard, views } from "./helpers.ts";

describe("a CardDAV client (tsdav)", () => {
	let t: TestApp;
	let a: TestAccount;
	let share: ContactShare;
	let origin: string;
	before(async () => {
		t = await makeApp({ domain: "share.example" });
		await t.app.listen({ port: 0, host: "127.0.0.1" });
		const address = t.app.server.address();
		origin = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
		a = await buildAccount(t.app, { name: "Ann" });
		share = await contactShare(t.app, a);
	});
	after(() => t.close());

	function client(slug: string) {
		return new DAVClient({
			serverUrl: `${origin}/dav/s/${slug}/`,
			credentials: {},
			// The share's address is the only credential: nothing to add to a request.
			authMethod: "Custom",
			authFunction: async () => ({}),
			defaultAccountType: "carddav",
		});
	}

	test("discovers the book and lists exactly one card with the share's current values", async () => {
		const c = client(share.slug);
		await c.login();
		const books = await c.fetchAddressBooks();
		assert.equal(books.length, 1);
		const [book] = books;
		assert.ok(book);
		assert.equal(book.displayName, "For the landlord");
		assert.ok(book.ctag);
		assert.deepEqual([...(book.reports ?? [])].sort(), ["addressbookMultiget", "addressbookQuery"]);
		const cards = await c.fetchVCards({ addressBook: book });
		assert.equal(cards.length, 1);
		assert.equal(cards[0]?.url, `${origin}/dav/s/${share.slug}/contact.vcf`);
		const card = vcard(String(cards[0]?.data));
		assert.equal(card.getFirstPropertyValue("fn"), "Ann Example");
		assert.equal(card.getFirstPropertyValue("email"), "ann@example.org");
		assert.equal(card.getFirstPropertyValue("tel"), "+49 151 2345678");
		assert.equal(
			await views(t.app, share.slug),
			1,
			"listing reads etags; only the card's download is a view",
		);

		const changed = await t.app.inject({
			method: "PATCH",
			url: `${RECORDS}/${share.ids.email}`,
			headers: a.headers,
			payload: { value: "ann@example.net" },
		});
		assert.equal(changed.statusCode, 200);
		assert.equal(await c.isCollectionDirty({ collection: book }).then((d) => d.isDirty), true);
		const again = await c.fetchVCards({ addressBook: book });
		assert.equal(vcard(String(again[0]?.data)).getFirstPropertyValue("email"), "ann@example.net");
	});

	test("finds no book behind a password", async () => {
		const rec = await createValue(t.app, a, { key: "email", value: "secret@example.org" });
		const link = await createLink(t.app, a, { records: [rec.id], password: "pw" });
		// The server shows a gated share nothing over DAV: the book's address is not found ...
		const res = await fetch(`${origin}/dav/s/${link.slug}/`, { method: "PROPFIND", headers: { depth: "0" } });
		assert.equal(res.status, 404, await res.text());
		// ... so the client finds no principal to log in to (not some other failure).
		await assert.rejects(() => client(link.slug).login(), /cannot find principalUrl/);
	});
});
