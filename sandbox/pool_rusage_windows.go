package sandbox

import "os"

// maxRSS is not measured on Windows.
func maxRSS(*os.ProcessState) int64 { return 0 }
