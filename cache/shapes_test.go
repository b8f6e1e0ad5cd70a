package cache

import "testing"

func TestShapes(t *testing.T) {
	s := open(t, t.TempDir(), Options{})
	defer s.Close()
	s.StoreShape("srv-a", "get", []byte(`{"results":1}`))
	s.StoreShape("srv-a", "get_all", []byte(`{"results":2}`))
	s.StoreShape("srv-b", "get", []byte(`{"results":3}`))
	if got := s.LoadShapes("srv-a"); len(got) != 2 || string(got["get"]) != `{"results":1}` || string(got["get_all"]) != `{"results":2}` {
		t.Errorf("LoadShapes(srv-a) = %q, want get and get_all", got)
	}
	if all := s.AllShapes(); len(all) != 2 || len(all["srv-a"]) != 2 || string(all["srv-b"]["get"]) != `{"results":3}` {
		t.Errorf("AllShapes = %q", all)
	}
	if n, err := s.CountShapes(); err != nil || n != 3 {
		t.Errorf("CountShapes = %d, %v; want 3", n, err)
	}
	// One tool: not the tool whose name it begins.
	if n, err := s.ForgetShapes("srv-a", "get"); err != nil || n != 1 {
		t.Errorf("ForgetShapes(srv-a, get) = %d, %v; want 1", n, err)
	}
	if got := s.LoadShapes("srv-a"); len(got) != 1 || got["get_all"] == nil {
		t.Errorf("after forgetting srv-a/get: %q", got)
	}
	if n, err := s.ForgetShapes("", ""); err != nil || n != 2 {
		t.Errorf("ForgetShapes(all) = %d, %v; want 2", n, err)
	}
	if n, _ := s.CountShapes(); n != 0 {
		t.Errorf("%d shapes left after forgetting all", n)
	}
}
