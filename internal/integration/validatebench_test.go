package integration

import (
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"

	"github.com/brakinglab/codemode-go/internal/jsontype"
	"github.com/brakinglab/codemode-go/internal/validate"
)

// The arguments of catalog's BenchmarkCall (catalog/fixture_test.go's
// SaveReportArgs), decoded, checked against their validate tags by
// validator/v10 with the catalog's old conversion to issues, and by
// internal/validate: the validation step of a call before and after, in
// one run.

type benchCorner struct {
	Corner  int      `json:"corner" validate:"min=1"`
	Verdict string   `json:"verdict" validate:"required,oneof=good needs_work critical"`
	Advice  string   `json:"advice,omitempty" validate:"max=20"`
	Tags    []string `json:"tags,omitempty" validate:"max=2,dive,oneof=braking apex exit"`
}

type BenchMeta struct {
	Source string `json:"source,omitempty" validate:"omitempty,oneof=manual ai"`
}

type benchReport struct {
	BenchMeta
	SessionID string         `json:"sessionId" validate:"required"`
	Summary   string         `json:"summary" validate:"min=3"`
	Corners   []benchCorner  `json:"corners" validate:"min=1,dive"`
	Weights   map[string]int `json:"weights,omitempty" validate:"omitempty,dive,gte=0"`
	Contact   string         `json:"contact,omitempty" validate:"omitempty,email"`
	When      *time.Time     `json:"when,omitempty"`
}

func benchReportJSON(verdict string) string {
	tags := []string{"braking", "apex", "exit"}
	var corners []string
	for i := 1; i <= 12; i++ {
		corners = append(corners, fmt.Sprintf(`{"corner":%d,"verdict":%q,"advice":"brake 5 m later","tags":[%q]}`, i, verdict, tags[i%3]))
	}
	return `{"sessionId":"ses_1","summary":"Consistent laps","corners":[` + strings.Join(corners, ",") +
		`],"weights":{"t1":2,"t2":1},"when":"2026-03-01T14:30:00Z"}`
}

func BenchmarkArgValidation(b *testing.B) {
	n, err := jsontype.FromGo(reflect.TypeFor[benchReport](), true)
	if err != nil {
		b.Fatal(err)
	}
	plan, err := validate.Compile(n)
	if err != nil {
		b.Fatal(err)
	}
	val := newValidator()
	for _, bc := range []struct{ name, args string }{
		{"valid 12-corner report", benchReportJSON("good")},
		{"12 bad verdicts", benchReportJSON("fine")},
	} {
		var v benchReport
		if err := jsonv2.Unmarshal([]byte(bc.args), &v); err != nil {
			b.Fatal(err)
		}
		rv := reflect.ValueOf(&v)
		ref, got := reference(val, n, rv), own(plan, rv)
		if !same(ref.issues, got.issues, false) {
			b.Fatalf("the two disagree: %v, %v", ref.issues, got.issues)
		}
		b.Run(bc.name+"/validator", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := val.Struct(&v); err != nil {
					validationIssues(n, err)
				}
			}
		})
		b.Run(bc.name+"/own", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				plan.Check(rv, 20)
			}
		})
	}
}
