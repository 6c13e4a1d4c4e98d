package bearer_test

import (
	"testing"

	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
)

func BenchmarkChallenge(b *testing.B) {
	c := bearer.Challenge{Error: bearer.ErrorInvalidToken, Description: `token type "JWT" is not accepted`, ResourceMetadata: testPRM}
	b.ReportAllocs()
	for b.Loop() {
		_ = c.String()
	}
}
