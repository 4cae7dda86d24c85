// Route schemas of connected tools (spec "Connections"). They generate the OpenAPI document.
import { Type } from "typebox";

export const AuthorizeBody = Type.Object(
	{
		clientId: Type.String({
			maxLength: 300,
			description:
				"The tool's origin: `https://host[:port]`, no path (with DOMAIN=localhost also `http://localhost[:port]` and `http://127.0.0.1[:port]`). Else 400 `connection_client_invalid`.",
		}),
		clientName: Type.Optional(
			Type.String({
				maxLength: 200,
				description:
					"The name the tool gives itself, a claim: one line of 1 to 40 characters once trimmed. Required to connect a new tool; given for a connected one it replaces the name; ignored with `reuse`.",
			}),
		),
		redirectUri: Type.String({
			maxLength: 2000,
			description:
				"Absolute address on `clientId`'s origin, without credentials or fragment; a code is redeemed only with this same address. Else 400 `connection_redirect_invalid`.",
		}),
		allowRevoke: Type.Optional(
			Type.Boolean({
				description:
					"The tool may revoke the shares its proposals became. Left out: kept (a new connection: false).",
			}),
		),
		allowHandOver: Type.Optional(
			Type.Boolean({
				description:
					"The tool may receive the shares its proposals became. Left out: kept (a new connection: false).",
			}),
		),
		challenge: Type.String({
			maxLength: 128,
			description:
				"PKCE S256 challenge of the tool's verifier (43 base64url). Else 400 `connection_challenge_invalid`.",
		}),
		reuse: Type.Optional(
			Type.Boolean({
				description:
					"No new consent: only an answer is issued; name, permissions and expiry stay. 409 `connection_not_connected` without a live connection for `clientId`.",
			}),
		),
		poll: Type.Optional(
			Type.Boolean({
				description:
					"The tool collects the answer at `/api/connect/token` with its verifier alone (found by the challenge, only from the tool's own Origin, kept five minutes). The code returned redeems the same answer; whichever comes first spends it.",
			}),
		),
	},
	{ additionalProperties: false },
);

export const AuthorizeResponse = Type.Object({
	code: Type.String({
		description: "One-time, five minutes; redeemed with the verifier at `/api/connect/token`.",
	}),
	connectionId: Type.String(),
});

export const TokenBody = Type.Object(
	{
		code: Type.Optional(
			Type.String({
				minLength: 1,
				maxLength: 256,
				description: "The code from the app's redirect; omitted when polling.",
			}),
		),
		verifier: Type.String({
			maxLength: 256,
			description: "The PKCE verifier (43 to 128 of `[A-Za-z0-9._~-]`).",
		}),
		redirectUri: Type.Optional(
			Type.String({
				maxLength: 2000,
				description:
					"With `code`: the return address the owner authorized, which it must equal (left out, the code is spent and refused). Polling needs none; one given must equal the authorized address.",
			}),
		),
	},
	{ additionalProperties: false },
);

export const ConnectionSummary = Type.Object(
	{
		id: Type.String(),
		clientName: Type.String(),
		expiresAt: Type.String({ format: "date-time" }),
		allowRevoke: Type.Boolean(),
		allowHandOver: Type.Boolean(),
	},
	{ $id: "ConnectionSummary" },
);

export const TokenResponse = Type.Object({
	token: Type.String({ description: "Send as `X-Svc-Connection`. Shown this once; only its hash is kept." }),
	connection: ConnectionSummary,
});

export const Pending = Type.Object({ pending: Type.Literal(true) });

export const ToolLink = Type.Object(
	{
		id: Type.String(),
		ref: Type.Union([Type.String(), Type.Null()]),
		label: Type.String(),
		status: Type.String({ description: "`active`, `paused`, `revoked` or `expired`." }),
		viewCount: Type.Integer(),
		maxViews: Type.Union([Type.Integer(), Type.Null()]),
		expiresAt: Type.Union([Type.String({ format: "date-time" }), Type.Null()]),
		created: Type.String({ format: "date-time" }),
		handedOver: Type.Boolean(),
		url: Type.Optional(
			Type.String({
				description:
					"The share's address (`/s/{slug}`): only on a handed-over, active share while `allowHandOver` is set and the share holds no hidden record or file (a record hidden later, or a file added to a granted section, withholds it until undone).",
			}),
		),
	},
	{ $id: "ToolLink", description: "A share a tool's proposal became, as the tool may see it." },
);

export const ToolConnection = Type.Object(
	{
		id: Type.String(),
		clientId: Type.String({ description: "The tool's origin." }),
		clientName: Type.String({ description: "The name the tool gives itself." }),
		expiresAt: Type.String({
			format: "date-time",
			description: "90 days after the owner last connected the tool; only connecting again renews it.",
		}),
		allowRevoke: Type.Boolean(),
		allowHandOver: Type.Boolean(),
		links: Type.Array(ToolLink, { description: "Newest first, at most 1000." }),
	},
	{ $id: "ToolConnection" },
);

export const LinkParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const PermissionsBody = Type.Object(
	{ allowRevoke: Type.Optional(Type.Boolean()), allowHandOver: Type.Optional(Type.Boolean()) },
	{ additionalProperties: false, description: "A field left out stays." },
);

export const PermissionsResponse = Type.Object({
	allowRevoke: Type.Boolean(),
	allowHandOver: Type.Boolean(),
});
