// A DNS server on loopback (dns2, pure JS) answering TXT, A and AAAA records from maps the test
// edits, so the `_svc.<domain>` pin and callback host look-ups can be exercised without touching
// real DNS. A name in no map answers NXDOMAIN; a known name without the asked type, no answers.
import dns2 from "dns2";

export interface TestDns {
	/** `127.0.0.1:<port>`, for DNS_SERVERS. */
	server: string;
	/** name -> TXT values (each one record); edit freely between requests. */
	txt: Map<string, string[]>;
	/** name -> IPv4 addresses (A records). */
	a: Map<string, string[]>;
	/** name -> IPv6 addresses (AAAA records). */
	aaaa: Map<string, string[]>;
	close(): Promise<void>;
}

export async function startDns(): Promise<TestDns> {
	const txt = new Map<string, string[]>();
	const a = new Map<string, string[]>();
	const aaaa = new Map<string, string[]>();
	const { Packet } = dns2;
	const server = dns2.createServer({
		udp: true,
		handle: (request, send) => {
			const response = Packet.createResponseFromRequest(request);
			const question = request.questions[0];
			const name = question?.name.toLowerCase() ?? "";
			const values = txt.get(name);
			if (!question || (!values && !a.has(name) && !aaaa.has(name))) {
				response.header.rcode = 3; // NXDOMAIN (dns2 types lack RCODE)
			} else if (question.type === Packet.TYPE.TXT) {
				for (const data of values ?? []) {
					const answer = { name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 0, data };
					response.answers.push(answer as unknown as (typeof response.answers)[number]);
				}
			} else if (question.type === Packet.TYPE.A || question.type === Packet.TYPE.AAAA) {
				const type = question.type;
				for (const address of (type === Packet.TYPE.A ? a : aaaa).get(name) ?? []) {
					const answer = { name: question.name, type, class: Packet.CLASS.IN, ttl: 0, address };
					response.answers.push(answer as unknown as (typeof response.answers)[number]);
				}
			}
			send(response);
		},
	});
	const addresses = await server.listen({ udp: { port: 0, address: "127.0.0.1" } });
	return {
		server: `127.0.0.1:${addresses.udp?.port}`,
		txt,
		a,
		aaaa,
		close: () => server.close(),
	};
}
