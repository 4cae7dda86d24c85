// The built `svc` as the owner's device (device-suite.ts), second half, signed in as the first
// half's login test does: identity keys and a handshake-gated share read, a request answered with
// a proven identity, API keys, 100 MB of vault files, the progress bar on a terminal, and sign-out.
//
// Runs once, not per database: the `svc` command line, a client of the server over HTTP; what it asks of the server runs on both databases in the API's own files.
import { deviceSuite } from "./device-suite.ts";

deviceSuite("second");
