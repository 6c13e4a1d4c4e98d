package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// User is an account. Its ID is the subject ("sub") of the access tokens
// issued for it, so tokens survive a username change.
type User struct {
	ID, Username, DisplayName string
	CreatedAt                 time.Time
}

// CreateUser adds a user with a bcrypt hash of password. id may be empty
// for a random one. A taken username gives ErrExists.
func (s *Store) CreateUser(ctx context.Context, id, username, displayName, password string) (User, error) {
	username = strings.TrimSpace(username)
	if username == "" || password == "" {
		return User{}, errors.New("store: username and password are required")
	}
	if id == "" {
		id = NewID("usr")
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return User{}, fmt.Errorf("store: hash password: %w", err)
	}
	u := User{ID: id, Username: username, DisplayName: displayName, CreatedAt: now()}
	err = s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM users WHERE username = ? OR id = ?`, username, id).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return fmt.Errorf("user %q: %w", username, ErrExists)
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO users (id, username, display_name, password_hash, created_at) VALUES (?, ?, ?, ?, ?)`,
			u.ID, u.Username, u.DisplayName, string(hash), ts(u.CreatedAt))
		return err
	})
	return u, err
}

// SetPassword replaces a user's password.
func (s *Store) SetPassword(ctx context.Context, username, password string) error {
	if password == "" {
		return errors.New("store: empty password")
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(password), bcrypt.DefaultCost)
	if err != nil {
		return err
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE users SET password_hash = ? WHERE username = ?`, string(hash), username)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
}

// AuthenticateUser checks a username (case-insensitive) and password. Any
// mismatch gives ErrInvalidCredentials, whichever part was wrong.
func (s *Store) AuthenticateUser(ctx context.Context, username, password string) (User, error) {
	var u User
	var hash, created string
	err := s.conn().QueryRowContext(ctx, `SELECT id, username, display_name, password_hash, created_at FROM users WHERE username = ?`,
		strings.TrimSpace(username)).Scan(&u.ID, &u.Username, &u.DisplayName, &hash, &created)
	if errors.Is(err, sql.ErrNoRows) {
		// Spend the same time as a real check so usernames cannot be probed.
		bcrypt.CompareHashAndPassword(dummyHash, []byte(password))
		return User{}, ErrInvalidCredentials
	}
	if err != nil {
		return User{}, err
	}
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		return User{}, ErrInvalidCredentials
	}
	u.CreatedAt = parseTS(created)
	return u, nil
}

var dummyHash, _ = bcrypt.GenerateFromPassword([]byte("not a password"), bcrypt.DefaultCost)

// UserBySubject returns the user whose ID is subject (a token's "sub").
func (s *Store) UserBySubject(ctx context.Context, subject string) (User, error) {
	return s.user(ctx, `id = ?`, subject)
}

// UserByUsername returns the user with the given username (case-insensitive).
func (s *Store) UserByUsername(ctx context.Context, username string) (User, error) {
	return s.user(ctx, `username = ?`, strings.TrimSpace(username))
}

// Users lists every user by username.
func (s *Store) Users(ctx context.Context) ([]User, error) {
	rows, err := s.conn().QueryContext(ctx, `SELECT id, username, display_name, created_at FROM users ORDER BY username`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []User
	for rows.Next() {
		var u User
		var created string
		if err := rows.Scan(&u.ID, &u.Username, &u.DisplayName, &created); err != nil {
			return nil, err
		}
		u.CreatedAt = parseTS(created)
		out = append(out, u)
	}
	return out, rows.Err()
}

func (s *Store) user(ctx context.Context, where string, arg string) (User, error) {
	var u User
	var created string
	err := s.conn().QueryRowContext(ctx, `SELECT id, username, display_name, created_at FROM users WHERE `+where, arg).
		Scan(&u.ID, &u.Username, &u.DisplayName, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return User{}, ErrNotFound
	}
	u.CreatedAt = parseTS(created)
	return u, err
}
