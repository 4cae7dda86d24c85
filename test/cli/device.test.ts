// The built `svc` as the owner's device (device-suite.ts), first half: `svc login` through the
// /passkey page in Chromium and `svc open` with the svc://auth link it opened, `svc open` refusing
// malformed links and opening a service's sign-in, the handler's part for a tool's link, and the
// command line's conventions. The second half: device-keys.test.ts.
import { deviceSuite } from "./device-suite.ts";

deviceSuite("first");
