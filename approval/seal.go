package approval

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
)

// approvedCall is one call the user sees and approves: the function
// (namespace.function) and its canonical arguments.
type approvedCall struct {
	Fn   string          `json:"fn"`
	Args json.RawMessage `json:"args"`
	// From is the sub-program that made the call
	// (sandbox.CallPosition.From), such as "saved.weeklyReview version
	// 3"; "" for the script itself. The question names it.
	From string `json:"from,omitempty"`
}

// approvalState is what an input-required result's request state carries,
// sealed: what the approval is bound to, the calls the user is asked to
// approve, and the execution so far (approvalExec).
type approvalState struct {
	V       int            `json:"v"`
	ID      string         `json:"id"` // random: the key that spends it once
	Subject string         `json:"sub"`
	Client  string         `json:"cid"`
	Tool    string         `json:"tool"`
	Code    string         `json:"code"` // hex SHA-256 of the code
	Calls   []approvedCall `json:"calls"`
	Expires int64          `json:"exp"` // Unix seconds
	// ClientName is who asks, as the approval page shows it.
	ClientName string `json:"cname,omitempty"`
	approvalExec
}

// approvalStateVersion is the format of a sealed state. Version 2 names
// calls namespace.function and carries the execution's record and an id
// that spends it once; a version 1 state is refused as invalid.
const approvalStateVersion = 2

// sealAD is the additional data of every sealed state: a state sealed for
// another purpose with the same key cannot be opened as an approval.
var sealAD = []byte("codemode approval state v2")

// seal encrypts and authenticates st for the request state.
func (a *Service) seal(st *approvalState) (string, error) {
	st.V = approvalStateVersion
	id := make([]byte, 16)
	if _, err := rand.Read(id); err != nil {
		return "", err
	}
	st.ID = base64.RawURLEncoding.EncodeToString(id)
	plain, err := json.Marshal(st)
	if err != nil {
		return "", err
	}
	if len(plain) > maxRecordBytes {
		return "", &errRecordTooLarge{size: len(plain)}
	}
	nonce := make([]byte, a.aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(a.aead.Seal(nonce, nonce, plain, sealAD)), nil
}

// errRecordTooLarge: the execution's record is over maxRecordBytes.
type errRecordTooLarge struct{ size int }

func (e *errRecordTooLarge) Error() string {
	return fmt.Sprintf("approval record of %d bytes, over %d", e.size, maxRecordBytes)
}

// errApprovalInvalid is why a request state is refused.
var errApprovalInvalid = errors.New("approval state invalid")

// approvalInvalidMessage is what the model reads for a refused state.
const approvalInvalidMessage = "the approval sent with this call is not valid for it (altered, expired, already used, or issued for other code, another user or another tool); nothing was written by this call. Run the code again to ask the user again."

// open authenticates and decrypts a request state and checks what it is
// bound to.
func (a *Service) open(token string, want *approvalState) (*approvalState, error) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil || len(raw) < a.aead.NonceSize() {
		return nil, errApprovalInvalid
	}
	n := a.aead.NonceSize()
	plain, err := a.aead.Open(nil, raw[:n], raw[n:], sealAD)
	if err != nil {
		return nil, errApprovalInvalid
	}
	var st approvalState
	if err := json.Unmarshal(plain, &st); err != nil || st.V != approvalStateVersion || st.ID == "" {
		return nil, errApprovalInvalid
	}
	if st.Subject != want.Subject || st.Client != want.Client || st.Tool != want.Tool || st.Code != want.Code {
		return nil, errApprovalInvalid
	}
	if a.now().Unix() >= st.Expires {
		return nil, errApprovalInvalid
	}
	return &st, nil
}
