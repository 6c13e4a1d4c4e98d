package approval

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/brakinglab/codemode-go/catalog"
)

// A record survives being sealed or stored: a replayed error keeps its
// message, code and object, as the script first read them.
func TestRecordRoundTrip(t *testing.T) {
	rec := []recordedCall{
		{Fn: "ns.get", Args: json.RawMessage(`{"id":1}`), Out: json.RawMessage(`{"a":1}`)},
		{Fn: "ns.del", Args: json.RawMessage(`{"id":2}`), Err: recordError(catalog.NotFound("item 2 not found")), Write: false},
		{Fn: "ns.add", Args: json.RawMessage(`{}`), Err: recordError(catalog.Conflict("taken"))},
	}
	b, err := json.Marshal(approvalExec{Record: rec})
	if err != nil {
		t.Fatal(err)
	}
	var back approvalExec
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back.Record, rec) {
		t.Fatalf("record after a round trip:\n%+v\nwant\n%+v", back.Record, rec)
	}
	if back.Record[1].Err.Code != catalog.CodeNotFound || back.Record[1].Err.Msg == "" {
		t.Fatalf("error %+v", back.Record[1].Err)
	}
}
