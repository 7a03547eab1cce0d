package mailserver_test

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/evolvekit/evolve/examples/mailer/internal/mailserver"
)

// A mail server on a free port of 127.0.0.1 delivers an email the first
// time it is posted and refuses the repeat of its Message-ID, and counts
// both, by worker too.
func Example() {
	m, err := mailserver.Start(mailserver.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer func() {
		if err := m.Close(context.Background()); err != nil {
			fmt.Println(err)
		}
	}()
	post := func(id string) {
		req, err := http.NewRequest(http.MethodPost, m.URL()+"/messages", strings.NewReader(`{"id":"`+id+`"}`))
		if err != nil {
			fmt.Println(err)
			return
		}
		req.Header.Set(mailserver.WorkerHeader, "w1")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			fmt.Println(err)
			return
		}
		defer resp.Body.Close()
		fmt.Println(resp.Status)
	}
	post("<1@example.com>")
	post("<1@example.com>") // sent again, as after a worker's crash
	c, err := mailserver.FetchCounts(context.Background(), m.URL())
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("posts: %v\n", c.Posts)
	fmt.Printf("total: %+v\n", c.Total)
	fmt.Printf("by w1: %+v\n", c.ByWorker["w1"])
	// Output:
	// 201 Created
	// 200 OK
	// posts: map[<1@example.com>:2]
	// total: {Delivered:1 Refused:1}
	// by w1: {Delivered:1 Refused:1}
}
