package catalog_test

import (
	"encoding/json"
	"fmt"

	"github.com/brakinglab/codemode-go/catalog"
)

// Canonical arguments compare equal whatever order and spacing the caller
// used: members sorted at every level, numbers as written, and the dry-run
// member taken out and reported.
func ExampleCanonical() {
	for _, args := range []string{
		`{ "lap": 3, "sessionId": "ses_1", "` + catalog.ValidateOnlyKey + `": true }`,
		`{"sessionId":"ses_1","lap":3}`,
		`{"z":{"b":1.50,"a":[2e3, null]},"a":"x"}`,
		``,
		`[1, 2]`,
		`{"a":1,"a":2}`,
	} {
		canon, dry, err := catalog.Canonical(json.RawMessage(args))
		if err != nil {
			b, _ := json.Marshal(err)
			fmt.Printf("error %s\n", b)
			continue
		}
		fmt.Printf("%s dry run: %v\n", canon, dry)
	}
	// Output:
	// {"lap":3,"sessionId":"ses_1"} dry run: true
	// {"lap":3,"sessionId":"ses_1"} dry run: false
	// {"a":"x","z":{"a":[2e3,null],"b":1.50}} dry run: false
	// {} dry run: false
	// error {"error":"Validation failed","issues":[{"path":[],"message":"Expected object, got array"}]}
	// error {"error":"Validation failed","issues":[{"path":["a"],"message":"Duplicate field"}]}
}

// ValidateOnlyKey is the member a caller adds to ask a MUTATING or
// CREATIVE function for a dry run.
func ExampleValidateOnlyKey() {
	args := fmt.Sprintf(`{"sessionId":"ses_1","corner":3,"verdict":"good",%q:true}`, catalog.ValidateOnlyKey)
	_, dry, _ := catalog.Canonical(json.RawMessage(args))
	fmt.Println(catalog.ValidateOnlyKey, dry)
	// Output:
	// _validateOnly true
}
