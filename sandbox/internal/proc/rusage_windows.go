package proc

import "os"

// MaxRSS is not measured on Windows.
func MaxRSS(*os.ProcessState) int64 { return 0 }
