package ndjson_test

import (
	"context"
	"fmt"
	"os"

	"github.com/evolvekit/evolve/examples/mailer/internal/ndjson"
)

// sent is a record of the campaign log.
type sent struct {
	ID      string `json:"id"`
	Outcome string `json:"outcome"`
}

// A Writer appends each batch of records to its file, one JSON record a
// line, and Read reads them all back in order.
func Example() {
	w, err := ndjson.Create[sent]("campaign log", "", "ndjson-example-*.ndjson")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.Remove(w.Path)
	ctx := context.Background()
	for _, batch := range [][]sent{
		{{"<1@example.com>", "delivered"}, {"<2@example.com>", "delivered"}},
		{{"<1@example.com>", "already-delivered"}},
	} {
		if err := w.Write(ctx, batch); err != nil {
			fmt.Println(err)
			return
		}
	}
	if err := w.Close(); err != nil {
		fmt.Println(err)
		return
	}
	data, err := os.ReadFile(w.Path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(data))
	records, err := ndjson.Read[sent]("campaign log", w.Path)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(len(records), "records read back; the last:", records[len(records)-1])
	// Output:
	// {"id":"<1@example.com>","outcome":"delivered"}
	// {"id":"<2@example.com>","outcome":"delivered"}
	// {"id":"<1@example.com>","outcome":"already-delivered"}
	// 3 records read back; the last: {<1@example.com> already-delivered}
}
