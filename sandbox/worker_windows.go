package sandbox

import "os"

// protocolOut returns the protocol pipe (standard output).
func protocolOut() *os.File { return os.Stdout }
