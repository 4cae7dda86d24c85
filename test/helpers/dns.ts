// A DNS server on loopback (dns2, pure JS) answering TXT records from a map the test edits, so the
// `_svc.<domain>` pin can be exercised without touching real DNS. Unknown names answer NXDOMAIN.
import dns2 from "dns2";

export interface TestDns {
	/** `127.0.0.1:<port>`, for DNS_SERVERS. */
	server: string;
	/** name -> TXT values (each one record); edit freely between requests. */
	txt: Map<string, string[]>;
	close(): Promise<void>;
}

export async function startDns(): Promise<TestDns> {
	const txt = new Map<string, string[]>();
	const { Packet } = dns2;
	const server = dns2.createServer({
		udp: true,
		handle: (request, send) => {
			const response = Packet.createResponseFromRequest(request);
			const question = request.questions[0];
			const values = question ? txt.get(question.name.toLowerCase()) : undefined;
			if (!question || !values) {
				response.header.rcode = 3; // NXDOMAIN (dns2 types lack RCODE)
			} else if (question.type === Packet.TYPE.TXT) {
				for (const data of values) {
					const answer = { name: question.name, type: Packet.TYPE.TXT, class: Packet.CLASS.IN, ttl: 0, data };
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
		close: () => server.close(),
	};
}
