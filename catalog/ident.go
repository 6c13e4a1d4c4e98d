package catalog

import "github.com/brakinglab/codemode-go/internal/jsident"

// checkIdent reports whether s can name a namespace or function: the rule
// the sandbox applies when it binds the namespace, so what registers also
// runs.
func checkIdent(s string) error { return jsident.Check(s) }
