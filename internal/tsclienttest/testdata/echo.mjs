// Reads one line, writes it back upper-cased on stdout, and says so on
// stderr; then waits for its input to end.
import { createInterface } from "node:readline";

const lines = createInterface({ input: process.stdin });
let first = true;
lines.on("line", (line) => {
  if (first) {
    first = false;
    process.stdout.write(line.toUpperCase() + "\n");
    process.stderr.write("echoed " + process.env.ECHO_NAME + "\n");
  }
});
lines.on("close", () => process.exit(0));
