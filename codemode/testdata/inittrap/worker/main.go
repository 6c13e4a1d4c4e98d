// Command worker is the separate worker binary that avoids the trap: it
// imports the sandbox (whose init turns it into a worker) and not config.
package main

import _ "github.com/brakinglab/codemode-go/sandbox"

func main() {}
