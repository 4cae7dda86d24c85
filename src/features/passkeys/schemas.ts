// Request and response shapes of the passkey endpoints (validation and the OpenAPI document).
import { Type } from "typebox";

const B64URL = "^[A-Za-z0-9_-]*$";
const b64url = (maxLength: number, description?: string) =>
	Type.String({ pattern: B64URL, minLength: 1, maxLength, ...(description ? { description } : {}) });

/** A ceremony handle, a code or a ticket as the server minted it: 43 base64url characters. */
const Secret = (description: string) => Type.String({ minLength: 1, maxLength: 256, description });

const Challenge = Type.String({
	maxLength: 256,
	description: "PKCE S256 challenge: base64url(SHA-256(verifier)), 43 characters",
});

const ExtensionResults = Type.Object(
	{},
	{ additionalProperties: true, default: {}, description: "getClientExtensionResults()" },
);

const CredentialBase = {
	id: b64url(1400, "credential id, base64url"),
	rawId: b64url(1400),
	type: Type.Literal("public-key"),
	authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
	clientExtensionResults: Type.Optional(ExtensionResults),
};

export const RegistrationCredential = Type.Object(
	{
		...CredentialBase,
		response: Type.Object(
			{
				clientDataJSON: b64url(8192),
				attestationObject: b64url(65536),
				authenticatorData: Type.Optional(b64url(65536)),
				transports: Type.Optional(Type.Array(Type.String({ maxLength: 32 }), { maxItems: 10 })),
				publicKeyAlgorithm: Type.Optional(Type.Integer()),
				publicKey: Type.Optional(b64url(8192)),
			},
			{ additionalProperties: true },
		),
	},
	{
		additionalProperties: true,
		description: "The RegistrationResponseJSON of navigator.credentials.create() (startRegistration)",
	},
);

export const AuthenticationCredential = Type.Object(
	{
		...CredentialBase,
		response: Type.Object(
			{
				clientDataJSON: b64url(8192),
				authenticatorData: b64url(65536),
				signature: b64url(8192),
				userHandle: Type.Optional(Type.String({ pattern: B64URL, maxLength: 256 })),
			},
			{ additionalProperties: true },
		),
	},
	{
		additionalProperties: true,
		description: "The AuthenticationResponseJSON of navigator.credentials.get() (startAuthentication)",
	},
);

const Options = (description: string) => Type.Object({}, { additionalProperties: true, description });

export const BeginResponse = (what: string) =>
	Type.Object({
		session: Type.String({ description: "ceremony handle for finish; good five minutes, answered once" }),
		options: Options(what),
	});

export const LoginBeginBody = Type.Object({ challenge: Challenge }, { additionalProperties: false });

export const RegisterBeginBody = Type.Object(
	{
		email: Type.Optional(
			Type.String({ maxLength: 320, description: "signup email; ignored when a ticket is given" }),
		),
		ticket: Type.Optional(Secret("one-time ticket from the operator or /api/passkeys/tickets")),
		invitation: Type.Optional(
			Secret(
				"invitation token (from `<origin>/app/invite#<token>`): signs up for the invitation's email, even with sign-ups off, and joins its workspace",
			),
		),
		request: Type.Optional(
			Type.String({
				minLength: 1,
				maxLength: 128,
				description:
					'a request\'s slug: an answer-only sign-up for `email`, admitted when the request allows it and the operator has not forbidden it (docs/api.md "Answer-only sign-ups")',
			}),
		),
		name: Type.Optional(
			Type.String({
				maxLength: 400,
				description: "the account's name when this creates an account, else the new passkey's name",
			}),
		),
		challenge: Type.Optional(Challenge),
	},
	{ additionalProperties: false },
);

export const LoginFinishBody = Type.Object(
	{ session: Secret("ceremony handle from login/begin"), credential: AuthenticationCredential },
	{ additionalProperties: false },
);

export const RegisterFinishBody = Type.Object(
	{ session: Secret("ceremony handle from register/begin"), credential: RegistrationCredential },
	{ additionalProperties: false },
);

export const CodeResponse = Type.Object({
	code: Type.String({ description: "one-time code for /api/passkeys/token; good two minutes" }),
});

export const RegisterFinishResponse = Type.Object({
	code: Type.Optional(
		Type.String({ description: "present when register/begin had a challenge; redeem like a login code" }),
	),
});

export const TokenBody = Type.Object(
	{
		code: Secret("the code from login or registration finish"),
		verifier: Type.String({ maxLength: 256, description: "the PKCE verifier whose S256 is the challenge" }),
	},
	{ additionalProperties: false },
);

export const AccountSchema = Type.Object(
	{
		id: Type.String(),
		email: Type.String(),
		name: Type.String(),
		created: Type.String({ format: "date-time" }),
		updated: Type.String({ format: "date-time" }),
	},
	{ description: "The signed-in account" },
);

export const TokenResponse = Type.Object({
	token: Type.String({ description: "session token: send as `Authorization: Bearer <token>`" }),
	record: AccountSchema,
});

export const TicketResponse = Type.Object({
	url: Type.String({ description: "`<origin>/passkey?mode=signup&ticket=<ticket>`; one-time" }),
	expiresAt: Type.String({ format: "date-time", description: "fifteen minutes from now" }),
});

export const PasskeyParams = Type.Object({ id: Type.String({ maxLength: 64 }) });
