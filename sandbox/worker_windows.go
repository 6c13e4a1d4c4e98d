package sandbox

import "os"

// protocolOut returns the protocol pipe (standard output).
func protocolOut() *os.File { return os.Stdout }

// protocolIn returns standard input.
func protocolIn() *os.File { return os.Stdin }
