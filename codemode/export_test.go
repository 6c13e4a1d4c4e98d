package codemode

import "time"

// InFlightCalls returns how many calls the stateless endpoint's
// cancellation registry holds.
func InFlightCalls(s *Server) int { return s.cancels.Len() }

// CancelledCalls returns how many calls notifications/cancelled POSTs have
// cancelled on the stateless endpoint.
func CancelledCalls(s *Server) int64 { return s.cancels.Cancelled() }

// SetPagePoll sets how often a call waiting on the approval page reads
// the store, and returns the function that restores it.
func SetPagePoll(d time.Duration) func() {
	old := pagePoll
	pagePoll = d
	return func() { pagePoll = old }
}

// NewSpentApprovals returns the in-process spent approvals, for servers of
// a test that share them as replicas share pgstate's.
func NewSpentApprovals() SpentApprovals { return newSpentCache(time.Now) }
