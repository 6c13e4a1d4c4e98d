package codemode

import (
	"encoding/base64"
	"encoding/json"
	"time"
)

// SetApprovalClock replaces the clock approvals expire by.
func SetApprovalClock(s *Server, now func() time.Time) { s.approvals.now = now }

// ReplaceRecordedArgs opens a sealed request state, replaces the
// arguments of its first recorded call and seals it again, as a replica
// whose host data changed under the record would see it.
func ReplaceRecordedArgs(s *Server, token string, args string) string {
	a := s.approvals
	raw, _ := base64.RawURLEncoding.DecodeString(token)
	n := a.aead.NonceSize()
	plain, err := a.aead.Open(nil, raw[:n], raw[n:], sealAD)
	if err != nil {
		panic(err)
	}
	var st approvalState
	if err := json.Unmarshal(plain, &st); err != nil {
		panic(err)
	}
	st.Record[0].Args = json.RawMessage(args)
	out, err := a.seal(&st)
	if err != nil {
		panic(err)
	}
	return out
}
