package bearer_test

import "strings"

// invalidToken is the challenge to a request whose token is refused.
func invalidToken(desc string) string {
	return `Bearer error="invalid_token", error_description="` + strings.ReplaceAll(desc, `"`, `\"`) +
		`", resource_metadata="` + testPRM + `"`
}
