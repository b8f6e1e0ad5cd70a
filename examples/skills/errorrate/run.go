package errorrate

// Args are the arguments of Run.
type Args struct {
	// Column to group by: region, customer, path or method.
	Column string `json:"column"`
	// Top keeps the highest rates only; 0 keeps all.
	Top int `json:"top,omitempty"`
}

// Run returns the highest error rates by a column of the access log.
func Run(args Args) ([]Rate, error) {
	rates, err := By(args.Column)
	if err != nil {
		return nil, err
	}
	if args.Top > 0 && args.Top < len(rates) {
		rates = rates[:args.Top]
	}
	return rates, nil
}
