package codemode

import "time"

// SetApprovalClock replaces the clock approvals expire by.
func SetApprovalClock(s *Server, now func() time.Time) { s.approvals.SetClock(now) }
