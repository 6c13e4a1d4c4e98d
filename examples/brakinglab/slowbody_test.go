package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestStalledBodyIsCut: the server had a header timeout but none for the
// body, so a client that sends headers and then trickles or withholds the
// body held a connection and a goroutine forever (slowloris). A body must
// now arrive within the body deadline.
func TestStalledBodyIsCut(t *testing.T) {
	read := make(chan error, 1)
	h := bodyDeadline(200*time.Millisecond, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		read <- err
		if err != nil {
			http.Error(w, "body too slow", http.StatusRequestTimeout)
			return
		}
		io.WriteString(w, "ok")
	}))
	ts := httptest.NewServer(h)
	t.Cleanup(ts.Close)

	conn, err := net.Dial("tcp", ts.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "POST /mcp HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"jsonrpc\":")
	// A guard against hanging forever, not a timing assertion.
	conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if ne, ok := err.(net.Error); ok && ne.Timeout() {
		conn.Close() // lets the handler return
		t.Fatal("the server still waits for a body that never arrives")
	}
	if err == nil {
		resp.Body.Close()
	}
	if e := <-read; e == nil {
		t.Fatal("the handler read a body that never arrived")
	}

	// A body that arrives in time is read normally, and the deadline does
	// not outlive it (the handler may run longer than the deadline).
	slow := bodyDeadline(200*time.Millisecond, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.ReadAll(r.Body); err != nil {
			t.Error(err)
		}
		time.Sleep(400 * time.Millisecond)
		if r.Context().Err() != nil {
			t.Error("request context cancelled after the body was read")
		}
		io.WriteString(w, "ok")
	}))
	ts2 := httptest.NewServer(slow)
	t.Cleanup(ts2.Close)
	r2, err := http.Post(ts2.URL, "application/json", strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(r2.Body)
	r2.Body.Close()
	if string(b) != "ok" {
		t.Fatalf("response %q", b)
	}
}
