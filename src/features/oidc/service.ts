// The OpenID Connect provider (spec "OpenID Connect provider"), the module other parts of the app
// import. Its steps, each in its own file: the authorization request's checks (authorize-checks.ts),
// the page's sign-in and consent (consent.ts), the code exchanged for tokens and userinfo
// (tokens.ts), entries shared as one share per person and service (shared-entries.ts), and what
// they have in common (protocol.ts).
export { consent, openRequest, signIn } from "./consent.ts";
export { ACCESS_TOKEN_TTL_S, issuerFor, OAuthError, pairwiseSub } from "./protocol.ts";
export { exchange, type TokenForm, userinfo } from "./tokens.ts";
