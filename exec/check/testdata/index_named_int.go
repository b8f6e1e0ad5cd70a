package main

import (
	"fmt"
	"time"
)

type level uint8

func main() {
	var total, failed [7]int
	days := []time.Time{
		time.Date(2026, 10, 2, 9, 0, 0, 0, time.UTC),
		time.Date(2026, 10, 3, 9, 0, 0, 0, time.UTC),
		time.Date(2026, 10, 9, 9, 0, 0, 0, time.UTC),
	}
	for i, d := range days {
		wd := d.Weekday()
		total[wd]++
		if i != 1 {
			failed[wd] += 2
		}
	}
	for _, wd := range []time.Weekday{time.Friday, time.Saturday} {
		fmt.Println(wd, total[wd], failed[wd])
	}
	names := []string{"", "Jan", "Feb", "Mar", "Apr", "May"}
	m := time.March
	fmt.Println(names[m], names[time.January:m], names[m:])
	lv := level(2)
	labels := []string{"debug", "info", "warn"}
	fmt.Println(labels[lv], labels[:lv], "warn"[lv:])
	defer func() { fmt.Println("recovered:", recover()) }()
	big := time.May
	fmt.Println(labels[big])
}

// Output:
// Friday 2 4
// Saturday 1 0
// Mar [Jan Feb] [Mar Apr May]
// warn [debug info] rn
// recovered: runtime error: index out of range [5] with length 3
