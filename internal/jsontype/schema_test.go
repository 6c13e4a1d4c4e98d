package jsontype

import "testing"

// TestFromSchemaComplete checks which schemas the node states in full (no
// second pass by a schema validator needed) and which it does not.
func TestFromSchemaComplete(t *testing.T) {
	for _, tc := range []struct {
		schema   string
		complete bool
	}{
		{`{"type":"object","properties":{"a":{"type":"string","minLength":1,"description":"x"}},"required":["a"]}`, true},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/A","description":"x"}},"$defs":{"A":{"type":"integer","maximum":3}}}`, true},
		{`{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"anyOf":[{"type":"string"},{"type":"null"}]}}}`, true},
		{`{"type":"object","properties":{"a":{"type":"array","prefixItems":[{"type":"string"}],"items":false}}}`, true},
		{`{"type":"object","properties":{"a":{"type":"string","pattern":"^x"}}}`, false},
		{`{"type":"object","properties":{"a":{"oneOf":[{"type":"string"},{"type":"integer"}]}}}`, false},
		{`{"type":"object","properties":{"a":{"type":["string","integer"]}}}`, false},
		{`{"type":"object","properties":{"a":{"type":"array","uniqueItems":true}}}`, false},
		{`{"type":"object","properties":{"a":{"not":{"type":"string"}}}}`, false},
		{`{"type":"object","properties":{},"required":["ghost"]}`, false},
		{`{"type":"object","properties":{"a":{"$ref":"#/$defs/A","maximum":2}},"$defs":{"A":{"type":"integer"}}}`, false},
		{`{"type":"object","properties":{"a":{"enum":[{"x":1}]}}}`, false},
		{`{"type":"object","properties":{"a":{"type":"number","multipleOf":2}}}`, false},
		{`{"type":"object","minProperties":1,"properties":{"a":{"type":"string"}}}`, false},
	} {
		_, complete, err := FromSchema([]byte(tc.schema))
		if err != nil {
			t.Errorf("%s: %v", tc.schema, err)
			continue
		}
		if complete != tc.complete {
			t.Errorf("%s: complete = %v, want %v", tc.schema, complete, tc.complete)
		}
	}
}

// TestFromSchemaRecursion checks that a recursive $ref becomes a cycle.
func TestFromSchemaRecursion(t *testing.T) {
	n, _, err := FromSchema([]byte(`{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	if kid := n.Fields[0].Node.Elem; kid != n {
		t.Errorf("the items of kids are not the root node: %+v", kid)
	}
}
