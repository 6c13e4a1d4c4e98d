package integration

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/brakinglab/codemode-go/internal/jsontype"
	"github.com/brakinglab/codemode-go/internal/validate"
)

// Struct cases of the differential test (see validatediff_test.go): a
// fixed type with embedding, pointers, dive into structs, keys, nested
// slices and cross-member rules, and random struct types, each checked
// with random values.

type diffInner struct {
	Name  string   `json:"name" validate:"required,min=2"`
	Score *int     `json:"score,omitempty" validate:"omitempty,gte=0,lte=10"`
	Alt   string   `json:"alt,omitempty" validate:"required_without=Name"`
	Tags  []string `json:"tags,omitempty" validate:"max=3,dive,oneof=a ab abc"`
}

type DiffBase struct {
	Source string `json:"source,omitempty" validate:"omitempty,oneof=manual ai"`
	Code   string `json:"code" validate:"required_with=Source,len=3"`
}

type diffPtrBase struct {
	Note string `json:"note,omitempty" validate:"max=5"`
}

type DiffTagged struct {
	Level int `json:"level" validate:"min=1"`
}

type DiffDeep struct {
	Deep []map[string]*diffInner `json:"deep" validate:"dive,dive"`
	Self *DiffDeep               `json:"self,omitempty"`
	Hint string                  `json:"hint,omitempty" validate:"required_if=Self nil"`
}

// diffHidden is embedded unexported: its members are promoted into JSON,
// and the values read through it must not be read-only to the checker.
type diffHidden struct {
	Items  []string       `json:"items,omitempty" validate:"unique"`
	ByName map[string]int `json:"byName,omitempty" validate:"dive,keys,alpha,endkeys"`
	Code   string         `json:"hcode,omitempty" validate:"omitempty,uuid"`
}

type diffArgs struct {
	diffHidden `validate:"required"`
	DiffBase
	*diffPtrBase
	DiffTagged `validate:"required"`
	ID         string               `json:"id" validate:"required,uuid4|alphanum"`
	Inner      diffInner            `json:"inner"`
	PInner     *diffInner           `json:"pInner,omitempty"`
	List       []diffInner          `json:"list" validate:"min=1,dive"`
	PList      []*diffInner         `json:"pList,omitempty" validate:"omitempty,dive,required"`
	NoDive     []diffInner          `json:"noDive,omitempty"`
	ByKey      map[string]diffInner `json:"byKey,omitempty" validate:"dive,keys,min=2,endkeys"`
	Matrix     [][]int              `json:"matrix,omitempty" validate:"dive,min=1,dive,gte=0"`
	Nums       map[string]int       `json:"nums,omitempty" validate:"omitempty,dive,keys,alpha,endkeys,gt=0"`
	Either     string               `json:"either,omitempty" validate:"required_without_all=ID Other"`
	Other      *string              `json:"other,omitempty" validate:"omitnil,min=1"`
	When       time.Time            `json:"when,omitzero" validate:"omitzero,lt"`
	Any        any                  `json:"any,omitempty" validate:"omitempty,required"`
	Arr        [2]string            `json:"arr,omitzero" validate:"dive,omitempty,alpha"`
	Anon       struct {
		X int `json:"x" validate:"ne=3"`
	} `json:"anon"`
	Levels []DiffDeep `json:"levels,omitempty" validate:"dive"`
	Skip   string     `json:"skip,omitempty" validate:"-"`
}

func TestValidateStructsAgainstValidator(t *testing.T) {
	val := newValidator()
	defer countTally(t, "struct types")()
	fixed := reflect.TypeFor[diffArgs]()
	for _, seed := range seeds(t, *diffCases/5) {
		r := rand.New(rand.NewPCG(seed, 2))
		var values []reflect.Value
		for range 6 {
			v := reflect.New(fixed)
			fill(r, v.Elem(), 0)
			values = append(values, v)
		}
		if diff := compare(val, fixed, values); diff != "" {
			t.Errorf("seed %d, fixed type: %s", seed, diff)
		}
		st := randomStruct(r, 0)
		values = values[:0]
		for range 6 {
			v := reflect.New(st)
			fill(r, v.Elem(), 0)
			values = append(values, v)
		}
		if diff := compare(val, st, values); diff != "" && !refusedAlone(diff) {
			t.Errorf("seed %d, random type: %s", seed, diff)
		}
	}
}

// refusedAlone tells a refusal of a random struct type, whose tags are
// random: the rules' refusals are held to validator/v10 one by one in
// TestValidateRulesAgainstValidator.
func refusedAlone(diff string) bool {
	return strings.HasPrefix(diff, "the checker refuses")
}

// randomStruct builds a struct type of one to four members of random
// types (nested structs, pointers to them, slices and maps of them up to
// depth 2) under random tags, beside Other, Num, Opt and Items for
// cross-member rules.
func randomStruct(r *rand.Rand, depth int) reflect.Type {
	var fields []reflect.StructField
	for i := range 1 + r.IntN(4) {
		var ft reflect.Type
		var tag string
		if depth < 2 && r.IntN(3) == 0 {
			inner := randomStruct(r, depth+1)
			switch r.IntN(5) {
			case 0:
				ft, tag = inner, pick(r, []string{"", "required", "omitempty"})
			case 1:
				ft, tag = reflect.PointerTo(inner), pick(r, []string{"", "required", "omitempty", "omitnil"})
			case 2:
				ft, tag = reflect.SliceOf(inner), pick(r, []string{"", "dive", "min=1,dive", "omitempty,dive", "max=1"})
			case 3:
				ft, tag = reflect.SliceOf(reflect.PointerTo(inner)), pick(r, []string{"dive", "dive,required", "omitempty,dive,omitempty"})
			default:
				ft, tag = reflect.MapOf(reflect.TypeFor[string](), inner), pick(r, []string{"dive", "dive,keys,min=2,endkeys", "min=1"})
			}
		} else {
			ft = pick(r, fieldTypes)
			if r.IntN(4) != 0 {
				tag = compilingTag(r, ft)
			}
		}
		json := fmt.Sprintf("f%d", i)
		if r.IntN(2) == 0 {
			json += ",omitempty"
		}
		sf := reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: ft, Tag: reflect.StructTag(fmt.Sprintf(`json:%q`, json))}
		if tag != "" {
			sf.Tag = reflect.StructTag(fmt.Sprintf(`json:%q validate:%q`, json, tag))
		}
		fields = append(fields, sf)
	}
	fields = append(fields, siblings...)
	return reflect.StructOf(fields)
}

// compilingTag draws random tags for a member of type ft until one the
// checker accepts, so random struct types are mostly compared value by
// value rather than refused.
func compilingTag(r *rand.Rand, ft reflect.Type) string {
	var tag string
	for range 20 {
		tag = randomTag(r, ft)
		st := oneMember(ft, tag)
		if n, err := jsontype.FromGo(st, true); err == nil {
			if _, err := validate.Compile(n); err == nil {
				return tag
			}
		}
	}
	return tag
}

// siblings are the members beside F that cross-member rules name.
var siblings = []reflect.StructField{
	{Name: "Other", Type: reflect.TypeFor[string](), Tag: `json:"other,omitempty"`},
	{Name: "Num", Type: reflect.TypeFor[int](), Tag: `json:"num,omitempty"`},
	{Name: "Opt", Type: reflect.TypeFor[*int](), Tag: `json:"opt,omitempty"`},
	{Name: "Items", Type: reflect.TypeFor[[]string](), Tag: `json:"items,omitempty"`},
}

// oneMember is a struct type with a member F of type ft under the validate
// tag tag, followed by siblings.
func oneMember(ft reflect.Type, tag string) reflect.Type {
	fields := []reflect.StructField{
		{Name: "F", Type: ft, Tag: reflect.StructTag(fmt.Sprintf(`json:"f" validate:%q`, tag))},
	}
	return reflect.StructOf(append(fields, siblings...))
}
