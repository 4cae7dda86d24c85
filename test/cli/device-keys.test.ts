// The built `svc` as the owner's device (device-suite.ts), second half, signed in as the first
// half's login test does: identity keys and a handshake-gated share read, a request answered with
// a proven identity, API keys, 100 MB of vault files, the progress bar on a terminal, and sign-out.
import { deviceSuite } from "./device-suite.ts";

deviceSuite("second");
