package main

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/evolvekit/evolve/examples/mailer/internal/mailserver"
)

// email is one email of the campaign: what the master posts to the chain,
// and what travels to a worker. ID is its Message-ID, which the mail
// server dedupes by: the idempotency key that makes a repeated send
// harmless. Relay is the mail server's URL, so a worker needs no setting
// of its own to reach it.
type email struct {
	ID      string `json:"id"`
	To      string `json:"to"`
	Subject string `json:"subject"`
	Relay   string `json:"relay"`
	// Client, with -clients, is whose campaign the email is of: the
	// stage's key, which shares the workers among the clients.
	Client string `json:"client,omitempty"`
}

// campaignName is in every Message-ID.
const campaignName = "spring-sale"

// newEmail returns the i-th email of the campaign, from 1, for the mail
// server at relay.
func newEmail(i int, relay string) email {
	return email{ID: messageID(i), To: fmt.Sprintf("reader%d@example.com", i), Subject: "Our spring sale", Relay: relay}
}

// emailNumber returns i of the Message-ID of the i-th email, or 0.
func emailNumber(id string) int {
	var i int
	if _, err := fmt.Sscanf(id, "<%d.", &i); err != nil {
		return 0
	}
	return i
}

// messageID returns the Message-ID of the i-th email.
func messageID(i int) string { return fmt.Sprintf("<%d.%s@mailer.example>", i, campaignName) }

// receipt is what a worker returns for an email: its Message-ID, the
// worker's name, and the mail server's answer: mailserver.Delivered, or
// mailserver.Repeat when an earlier send of the same email had been delivered
// (by a worker that died before it could report it, say).
type receipt struct {
	ID      string `json:"id"`
	Worker  string `json:"worker"`
	Outcome string `json:"outcome"`
}

// sendTimeout bounds one POST to the mail server.
const sendTimeout = 10 * time.Second

// sender POSTs emails to their mail server, as a worker named name. It is
// safe for concurrent use.
type sender struct {
	name   string
	client *http.Client
}

// newSender returns a sender that keeps up to slots connections open, and
// speaks to a mail server of https:// URL with creds, the worker's mutual
// TLS (nil for none).
func newSender(name string, slots int, creds *tls.Config) *sender {
	t := &http.Transport{MaxIdleConnsPerHost: slots, IdleConnTimeout: 30 * time.Second}
	if creds != nil {
		t.TLSClientConfig = creds.Clone()
	}
	return &sender{name: name, client: &http.Client{Transport: t}}
}

// close closes the idle connections.
func (s *sender) close() { s.client.CloseIdleConnections() }

// send POSTs e to its relay and returns the receipt; an answer other than
// 201 or 200 is an error, and the master tries the email again.
func (s *sender) send(ctx context.Context, e email) (receipt, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return receipt{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, sendTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.Relay+"/messages", bytes.NewReader(body))
	if err != nil {
		return receipt{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(mailserver.WorkerHeader, s.name)
	resp, err := s.client.Do(req)
	if err != nil {
		return receipt{}, err
	}
	defer resp.Body.Close()
	var a mailserver.Answer
	err = json.NewDecoder(resp.Body).Decode(&a)
	_, _ = io.Copy(io.Discard, resp.Body) // so the connection is reused
	switch {
	case resp.StatusCode != http.StatusCreated && resp.StatusCode != http.StatusOK:
		return receipt{}, fmt.Errorf("email %s: the mail server answered %s", e.ID, resp.Status)
	case err != nil:
		return receipt{}, fmt.Errorf("email %s: the mail server's answer: %w", e.ID, err)
	}
	return receipt{ID: e.ID, Worker: s.name, Outcome: a.Outcome}, nil
}
