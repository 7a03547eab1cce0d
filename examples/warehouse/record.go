package main

import "fmt"

// record is what the API answers for one id, and what each line of a batch
// file holds.
type record struct {
	ID    int    `json:"id"`
	SKU   string `json:"sku"`
	Name  string `json:"name"`
	Stock int    `json:"stock"`
}

// recordFor returns the record the API keeps under id.
func recordFor(id int) record {
	return record{
		ID:    id,
		SKU:   fmt.Sprintf("SKU-%07d", id),
		Name:  fmt.Sprintf("item %d", id),
		Stock: id * 7919 % 1000,
	}
}
