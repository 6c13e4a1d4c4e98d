package proc

import "os"

// ProtocolOut returns the protocol pipe (standard output).
func ProtocolOut() *os.File { return os.Stdout }

// ProtocolIn returns standard input.
func ProtocolIn() *os.File { return os.Stdin }
