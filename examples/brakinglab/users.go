package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/brakinglab/codemode-go/examples/brakinglab/authserver"
	"github.com/brakinglab/codemode-go/examples/brakinglab/store"
	"github.com/brakinglab/codemode-go/oauthmeta/bearer"
)

// externalUsers maps the users of an external issuer to BrakingLab
// accounts. The catalog finds the caller by store user ID, so the first
// valid token of a new (issuer, sub) pair creates an account whose ID is
// derived from both; it has a random password, since that user signs in at
// the issuer, never on BrakingLab's own page.
type externalUsers struct {
	v      bearer.Verifier
	st     *store.Store
	issuer string
	log    *slog.Logger
}

// Verify checks the token with the issuer's keys, then swaps the external
// subject for the local account's ID.
func (e *externalUsers) Verify(ctx context.Context, token string) (*bearer.Token, error) {
	tok, err := e.v.Verify(ctx, token)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(e.issuer + "\x00" + tok.Principal.Subject))
	id := "ext_" + hex.EncodeToString(sum[:10])
	if _, err := e.st.UserBySubject(ctx, id); errors.Is(err, store.ErrNotFound) {
		name := tok.Principal.Subject
		for _, claim := range []string{"name", "preferred_username", "email"} {
			if v, ok := tok.Claims[claim].(string); ok && v != "" {
				name = v
				break
			}
		}
		_, err = e.st.CreateUser(ctx, id, id, name, rand.Text())
		if err != nil && !errors.Is(err, store.ErrExists) {
			return nil, fmt.Errorf("creating the account of %s: %w", name, err)
		}
		if err == nil {
			e.log.Info("created an account for an external user", "issuer", e.issuer, "user", id)
		}
	} else if err != nil {
		return nil, err
	}
	tok.Principal.Subject = id
	return tok, nil
}

// ClockSkew passes the wrapped verifier's tolerance on to the middleware.
func (e *externalUsers) ClockSkew() time.Duration {
	if s, ok := e.v.(interface{ ClockSkew() time.Duration }); ok {
		return s.ClockSkew()
	}
	return bearer.DefaultClockSkew
}

// storeUsers lets the authorization server check passwords against the store.
type storeUsers struct{ st *store.Store }

func (s storeUsers) Authenticate(ctx context.Context, username, password string) (subject, displayName string, err error) {
	u, err := s.st.AuthenticateUser(ctx, username, password)
	if errors.Is(err, store.ErrInvalidCredentials) {
		return "", "", fmt.Errorf("%w", authserver.ErrBadCredentials)
	}
	if err != nil {
		return "", "", err
	}
	name := u.DisplayName
	if name == "" {
		name = u.Username
	}
	return u.ID, name, nil
}
