package authserver

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"database/sql"
	"encoding/base64"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/brakinglab/codemode-go/examples/brakinglab/internal/sqldb"
	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"
)

// keyRing holds the signing key (the newest stored one) and every public
// key still published, so tokens signed before a rotation keep verifying.
type keyRing struct {
	signer jose.Signer
	kid    string
	jwks   jose.JSONWebKeySet
}

// loadKeyRing reads the stored keys, creating an ES256 key on first start.
// The check and the creation run under the migration lock, so replicas
// starting together on one database create one key between them.
func loadKeyRing(ctx context.Context, db *sql.DB, now func() time.Time) (*keyRing, error) {
	var keys []jose.JSONWebKey
	err := sqldb.LockedTx(ctx, db, migrationLock, func(tx *sql.Tx) error {
		var err error
		if keys, err = readKeys(ctx, tx); err != nil || len(keys) > 0 {
			return err
		}
		if err := createKey(ctx, tx, now); err != nil {
			return err
		}
		keys, err = readKeys(ctx, tx)
		return err
	})
	if err != nil {
		return nil, err
	}
	if len(keys) == 0 {
		return nil, fmt.Errorf("authserver: signing key missing after creation")
	}
	ring := &keyRing{kid: keys[0].KeyID}
	for _, k := range keys {
		ring.jwks.Keys = append(ring.jwks.Keys, k.Public())
	}
	ring.signer, err = jose.NewSigner(
		jose.SigningKey{Algorithm: jose.ES256, Key: keys[0]},
		(&jose.SignerOptions{}).WithType("at+jwt"),
	)
	if err != nil {
		return nil, fmt.Errorf("authserver: signer: %w", err)
	}
	return ring, nil
}

// readKeys returns the stored keys, newest first.
func readKeys(ctx context.Context, tx *sql.Tx) ([]jose.JSONWebKey, error) {
	rows, err := tx.QueryContext(ctx, `SELECT kid, alg, private_pkcs8 FROM authserver_signing_keys ORDER BY created_at DESC, kid`)
	if err != nil {
		return nil, fmt.Errorf("authserver: read signing keys: %w", err)
	}
	defer rows.Close()
	var keys []jose.JSONWebKey
	for rows.Next() {
		var kid, alg string
		var der []byte
		if err := rows.Scan(&kid, &alg, &der); err != nil {
			return nil, fmt.Errorf("authserver: read signing keys: %w", err)
		}
		priv, err := x509.ParsePKCS8PrivateKey(der)
		if err != nil {
			return nil, fmt.Errorf("authserver: signing key %s: %w", kid, err)
		}
		keys = append(keys, jose.JSONWebKey{Key: priv, KeyID: kid, Algorithm: alg, Use: "sig"})
	}
	return keys, rows.Err()
}

// createKey stores a new P-256 key.
func createKey(ctx context.Context, tx *sql.Tx, now func() time.Time) error {
	priv, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return err
	}
	pub := jose.JSONWebKey{Key: &priv.PublicKey}
	tp, err := pub.Thumbprint(crypto.SHA256)
	if err != nil {
		return err
	}
	der, err := x509.MarshalPKCS8PrivateKey(priv)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO authserver_signing_keys (kid, alg, private_pkcs8, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING`,
		base64.RawURLEncoding.EncodeToString(tp), string(jose.ES256), der, now().Unix())
	if err != nil {
		return fmt.Errorf("authserver: store signing key: %w", err)
	}
	return nil
}

// accessClaims are the RFC 9068 claims beyond the registered ones.
type accessClaims struct {
	jwt.Claims
	ClientID string `json:"client_id"`
	Scope    string `json:"scope"`
}

// mintAccessToken signs an access token for one user, client, scope set and resource.
func (s *Server) mintAccessToken(subject, clientID string, scopes []string, resource string) (string, error) {
	now := s.now()
	c := accessClaims{
		Claims: jwt.Claims{
			Issuer:   s.issuer,
			Subject:  subject,
			Audience: jwt.Audience{resource},
			IssuedAt: jwt.NewNumericDate(now),
			Expiry:   jwt.NewNumericDate(now.Add(s.accessTTL)),
			ID:       rand.Text(),
		},
		ClientID: clientID,
		Scope:    strings.Join(scopes, " "),
	}
	return jwt.Signed(s.keys.signer).Claims(c).Serialize()
}

func (s *Server) handleJWKS(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeJSON(w, http.StatusOK, s.keys.jwks)
}
