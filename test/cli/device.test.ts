// The built `svc` as the owner's device (device-suite.ts), first half: `svc login` through the
// /passkey page in Chromium and `svc open` with the svc://auth link it opened, `svc open` refusing
// malformed links and opening a service's sign-in, the handler's part for a tool's link, and the
// command line's conventions. The second half: device-keys.test.ts.
//
// Runs once, not per database: the `svc` command line, a client of the server over HTTP; what it asks of the server runs on both databases in the API's own files.
import { deviceSuite } from "./device-suite.ts";

deviceSuite("first");
