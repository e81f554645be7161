package main

import "strings"

// The shapes. In the bodies, WANT marks the line the rule reports: the
// select (SD101), the sleep (SD102), the timer's call (SD104), the
// ticker's call (SD105), the for statement (SD106).

func selectSpin() shape {
	sh := shape{dir: "selectspin", name: "Select", rule: "SD101", want: "spins a core on a select",
		doc: "a loop around a select whose default neither blocks nor leaves (SD101)."}
	for _, s := range doneSrcs {
		sh.pos = append(sh.pos, variant{s.name, s.recv, s.params, join(s.pre, `for {
	select { WANT
	case <-`+s.expr+`:
		return
	default:
	}
}`)})
	}
	sh.pos = append(sh.pos,
		variant{"DefaultContinue", "", "done chan struct{}", `for {
	select { WANT
	case <-done:
		return
	default:
		continue
	}
}`},
		variant{"DefaultGosched", "s *server", "", `for {
	select { WANT
	case <-s.done:
		return
	default:
		runtime.Gosched()
	}
}`},
		variant{"DefaultCounter", "s *server", "", `for {
	select { WANT
	case v := <-s.jobs:
		sink = v
	default:
		count++
	}
}`},
		variant{"DefaultTinySleep", "s *server", "", `for {
	select { WANT
	case <-s.done:
		return
	default:
		time.Sleep(10 * time.Microsecond)
	}
}`},
		variant{"CondCtx", "s *server", "ctx context.Context", `for ctx.Err() == nil {
	select { WANT
	case v := <-s.jobs:
		sink = v
	default:
	}
}`},
		variant{"Labeled", "", "done chan struct{}", `loop:
for {
	select { WANT
	case <-done:
		break loop
	default:
	}
}
count++`},
		variant{"Closure", "s *server", "", `go func() {
	for {
		select { WANT
		case <-s.done:
			return
		default:
		}
	}
}()`},
		variant{"TwoCases", "s *server", "r *http.Request", `for {
	select { WANT
	case <-s.done:
		return
	case <-r.Context().Done():
		return
	default:
	}
}`},
		variant{"GenericItems", "b *box[T]", "", `for {
	select { WANT
	case v := <-b.items:
		sink = v
	default:
	}
}`},
		variant{"DefaultAtomic", "s *server", "", `for {
	select { WANT
	case <-s.done:
		return
	default:
		s.n.Add(1)
	}
}`},
	)
	blocking := []src{doneSrcs[0], doneSrcs[1], doneSrcs[3], doneSrcs[7], doneSrcs[8], doneSrcs[9], doneSrcs[4], doneSrcs[5]}
	for _, s := range blocking {
		sh.neg = append(sh.neg, variant{"Blocking" + s.name, s.recv, s.params, join(s.pre, `for {
	select {
	case <-`+s.expr+`:
		return
	case <-time.After(time.Second):
		count++
	}
}`)})
	}
	sh.neg = append(sh.neg,
		variant{"SlowPoll", "s *server", "", `for {
	select {
	case <-s.done:
		return
	default:
		time.Sleep(time.Millisecond)
	}
}`},
		variant{"DefaultWork", "s *server", "", `for {
	select {
	case <-s.done:
		return
	default:
		sink = sha256.Sum256(buf)
	}
}`},
		variant{"DefaultWorkGosched", "s *server", "", `for {
	select {
	case <-s.done:
		return
	default:
		sink = sha256.Sum256(buf)
		runtime.Gosched()
	}
}`},
		variant{"CtxDefaultWork", "", "r *http.Request", `for {
	select {
	case <-r.Context().Done():
		return
	default:
		sink = sha256.Sum256(buf)
	}
}`},
		variant{"Drain", "s *server", "", `for {
	select {
	case v := <-s.jobs:
		sink = v
	default:
		return
	}
}`},
		variant{"DrainLabeled", "s *server", "", `drain:
for {
	select {
	case v := <-s.jobs:
		sink = v
	default:
		break drain
	}
}
count++`},
		variant{"DefaultBlocks", "s *server", "", `for {
	select {
	case <-s.done:
		return
	default:
		v := <-s.jobs
		sink = v
	}
}`},
		variant{"DefaultCond", "s *server", "", `for {
	select {
	case <-s.done:
		return
	default:
		s.mu.Lock()
		s.cond.Wait()
		s.mu.Unlock()
	}
}`},
		variant{"Counted", "s *server", "", `for i := 0; i < 10; i++ {
	select {
	case <-s.done:
		return
	default:
	}
}`},
		variant{"RangeDrop", "s *server", "items []int", `for _, v := range items {
	select {
	case s.out <- v:
	default:
		count++
	}
}`},
		variant{"FlagExit", "s *server", "", `for done := false; !done; {
	select {
	case v := <-s.jobs:
		sink = v
	default:
		done = true
	}
}`},
		variant{"Ticker", "s *server", "", `for {
	select {
	case <-s.done:
		return
	case <-s.ticker.C:
		count++
	}
}`},
		variant{"DefaultSendBlocks", "s *server", "", `for {
	select {
	case <-s.done:
		return
	default:
		s.out <- 1
	}
}`},
		variant{"ClosureBlocking", "s *server", "", `go func() {
	for {
		select {
		case <-s.done:
			return
		case v := <-s.jobs:
			sink = v
		}
	}
}()`},
	)
	return sh
}

// outSrcs are the spellings of a channel a loop sends on.
var outSrcs = []src{
	{"Param", "", "out chan int", "", "out"},
	{"Field", "s *server", "", "", "s.out"},
	{"FieldChain", "s *server", "", "", "s.inner.out"},
	{"Getter", "s *server", "", "", "s.Out()"},
	{"Call", "s *server", "", "", "outOf(s)"},
	{"Generic", "b *box[T]", "v T", "", "b.out"},
	{"Hoisted", "s *server", "", "out := s.Out()", "out"},
}

func selectSend() shape {
	sh := shape{dir: "selectsend", name: "Send", rule: "SD101", want: "spins a core on a select",
		doc: "a loop that retries a select-default send until the channel has room (SD101)."}
	val := func(s src) string {
		if s.name == "Generic" {
			return "v"
		}
		return "1"
	}
	for _, s := range outSrcs {
		sh.pos = append(sh.pos, variant{s.name, s.recv, s.params, join(s.pre, `for {
	select { WANT
	case `+s.expr+` <- `+val(s)+`:
		return
	default:
	}
}`)})
	}
	for _, s := range outSrcs[:5] {
		sh.pos = append(sh.pos, variant{s.name + "Gosched", s.recv, s.params, join(s.pre, `for {
	select { WANT
	case `+s.expr+` <- 1:
		return
	default:
		runtime.Gosched()
	}
}`)})
	}
	sh.pos = append(sh.pos,
		variant{"CtxInline", "s *server", "r *http.Request", `for {
	select { WANT
	case s.out <- 1:
		return
	case <-r.Context().Done():
		return
	default:
	}
}`},
		variant{"CtxHoisted", "s *server", "r *http.Request", `ctx := r.Context()
for {
	select { WANT
	case s.out <- 1:
		return
	case <-ctx.Done():
		return
	default:
	}
}`},
		variant{"CondCtx", "s *server", "ctx context.Context", `for ctx.Err() == nil {
	select { WANT
	case s.out <- 1:
		return
	default:
	}
}`},
		variant{"Labeled", "s *server", "", `send:
for {
	select { WANT
	case s.out <- 1:
		break send
	default:
		count++
	}
}
count--`},
		variant{"Closure", "s *server", "", `go func() {
	for {
		select { WANT
		case s.out <- 1:
			return
		default:
		}
	}
}()`},
		variant{"Retries", "s *server", "", `for {
	select { WANT
	case s.out <- 1:
		return
	default:
		s.n.Add(1)
	}
}`},
		variant{"Continue", "s *server", "", `for {
	select { WANT
	case s.out <- 1:
		return
	default:
		continue
	}
}`},
		variant{"TinySleep", "s *server", "", `for {
	select { WANT
	case s.out <- 1:
		return
	default:
		time.Sleep(5 * time.Microsecond)
	}
}`},
	)
	sh.neg = append(sh.neg,
		variant{"Blocking", "s *server", "", `for {
	select {
	case s.out <- 1:
		return
	case <-s.done:
		return
	}
}`},
		variant{"BlockingCtxInline", "s *server", "r *http.Request", `for {
	select {
	case s.out <- 1:
		return
	case <-r.Context().Done():
		return
	}
}`},
		variant{"BlockingGeneric", "b *box[T]", "v T", `for {
	select {
	case b.out <- v:
		return
	case <-b.done:
		return
	}
}`},
		variant{"DropOnFull", "s *server", "items []int", `for _, v := range items {
	select {
	case s.out <- v:
	default:
		count++
	}
}`},
		variant{"DefaultReturnsError", "s *server", "", `for {
	select {
	case s.out <- 1:
		count++
	default:
		return
	}
}`},
		variant{"SlowPoll", "s *server", "", `for {
	select {
	case s.out <- 1:
		return
	default:
		time.Sleep(2 * time.Millisecond)
	}
}`},
		variant{"DefaultBlocks", "s *server", "", `for {
	select {
	case s.out <- 1:
		return
	default:
		<-s.wake
	}
}`},
		variant{"ReplacePending", "s *server", "", `for {
	select {
	case s.out <- 1:
		return
	default:
		select {
		case <-s.out:
		default:
		}
	}
}`},
		variant{"Counted", "s *server", "", `for i := 0; i < 3; i++ {
	select {
	case s.out <- 1:
		return
	default:
	}
}`},
		variant{"DefaultWork", "s *server", "", `for {
	select {
	case s.out <- 1:
		return
	default:
		sink = sha256.Sum256(buf)
	}
}`},
		variant{"DefaultWorkGosched", "s *server", "", `for {
	select {
	case s.out <- 1:
		return
	default:
		sink = sha256.Sum256(buf)
		runtime.Gosched()
	}
}`},
		variant{"Timeout", "s *server", "", `for {
	select {
	case s.out <- 1:
		return
	case <-time.After(time.Second):
		return
	}
}`},
		variant{"RangeJobs", "s *server", "", `for j := range s.jobs {
	select {
	case s.out <- j:
	default:
		count++
	}
}`},
		variant{"PlainSend", "s *server", "items []int", `for _, v := range items {
	s.out <- v
}`},
		variant{"FlagExit", "s *server", "", `for sent := false; !sent; {
	select {
	case s.out <- 1:
		sent = true
	default:
		sent = true
	}
}`},
		variant{"DefaultCond", "s *server", "", `for {
	select {
	case s.out <- 1:
		return
	default:
		s.mu.Lock()
		s.cond.Wait()
		s.mu.Unlock()
	}
}`},
		variant{"ClosureBlocking", "s *server", "", `go func() {
	for {
		select {
		case s.out <- 1:
		case <-s.done:
			return
		}
	}
}()`},
		variant{"SendThenBlock", "s *server", "", `for {
	select {
	case s.out <- 1:
		return
	default:
	}
	<-s.wake
}`},
		variant{"CtxErrWork", "s *server", "ctx context.Context", `for ctx.Err() == nil {
	select {
	case s.out <- 1:
		return
	default:
		sink = sha256.Sum256(buf)
	}
}`},
		variant{"LabeledBlocking", "s *server", "", `send:
for {
	select {
	case s.out <- 1:
		break send
	case <-s.done:
		return
	}
}
count--`},
	)
	return sh
}

// flagSpin is the atomic-flag spin, with runtime.Gosched in the body when
// yield is set (SD106 either way).
func flagSpin(yield bool) shape {
	sh := shape{dir: "flagspin", name: "Flag", rule: "SD106", want: "loop spins",
		doc: "a loop spinning on a flag another goroutine sets, with nothing in its body (SD106)."}
	body := "\n"
	if yield {
		sh = shape{dir: "flagyield", name: "Yield", rule: "SD106", want: `loop spins.*runtime.Gosched does not park`,
			doc: "a loop spinning on a flag with runtime.Gosched, which does not park (SD106)."}
		body = "\n\truntime.Gosched()\n"
	}
	for _, s := range flagSrcs {
		sh.pos = append(sh.pos, variant{s.name, s.recv, s.params, `for !(` + s.expr + `) { WANT` + body + `}`})
	}
	for _, s := range flagSrcs[:6] {
		sh.pos = append(sh.pos, variant{s.name + "Break", s.recv, s.params, `for { WANT
	if ` + s.expr + ` {
		break
	}` + body + `}
count++`})
	}
	sh.pos = append(sh.pos,
		variant{"Return", "s *server", "", `for { WANT
	if s.ready.Load() {
		return
	}` + body + `}`},
		variant{"Labeled", "s *server", "", `wait:
for { WANT
	if s.ready.Load() {
		break wait
	}` + body + `}
count++`},
		variant{"Closure", "s *server", "", `go func() {
	for !s.ready.Load() { WANT` + body + `}
	count++
}()`},
		variant{"Counter", "s *server", "", `spins := 0
for !s.ready.Load() { WANT
	spins++` + body + `}
sink = spins`},
		variant{"EqualFalse", "s *server", "", `for s.ready.Load() == false { WANT` + body + `}`},
		variant{"TwoFlags", "s *server", "", `for !s.ready.Load() && !s.closed.Load() { WANT` + body + `}`},
		variant{"ChanLen", "s *server", "", `for len(s.jobs) == 0 { WANT` + body + `}`},
		variant{"CtxErr", "", "ctx context.Context", `for ctx.Err() == nil { WANT` + body + `}`},
		variant{"ReRead", "s *server", "", `v := s.state.Load()
for v != 2 { WANT
	v = s.state.Load()` + body + `}`},
		variant{"GenericHas", "b *box[T]", "", `for !b.has() { WANT` + body + `}`},
	)
	sh.neg = append(sh.neg,
		variant{"SlowPoll", "s *server", "", `for !s.ready.Load() {
	time.Sleep(time.Millisecond)
}`},
		variant{"ChannelWait", "s *server", "", `for !s.ready.Load() {
	<-s.wake
}`},
		variant{"BlockingSelect", "s *server", "ctx context.Context", `for !s.ready.Load() {
	select {
	case <-s.wake:
	case <-ctx.Done():
		return
	}
}`},
		variant{"Cond", "s *server", "", `s.mu.Lock()
for !s.ready.Load() {
	s.cond.Wait()
}
s.mu.Unlock()`},
		variant{"Work", "s *server", "", `for !s.ready.Load() {
	sink = sha256.Sum256(buf)
}`},
		variant{"WorkGosched", "s *server", "", `for !s.closed.Load() {
	sink = sha256.Sum256(buf)
	runtime.Gosched()
}`},
		variant{"CASRetry", "s *server", "", `for {
	old := s.n.Load()
	if s.n.CompareAndSwap(old, old+1) {
		return
	}
}`},
		variant{"CASRetryGosched", "s *server", "", `for {
	old := s.n.Load()
	if s.n.CompareAndSwap(old, old*2) {
		return
	}
	runtime.Gosched()
}`},
		variant{"SpinLockAcquire", "s *server", "", `for !s.state.CompareAndSwap(0, 1) {
	runtime.Gosched()
}`},
		variant{"Counted", "s *server", "", `for i := 0; i < 100 && !s.ready.Load(); i++ {
}`},
		variant{"CountedGosched", "s *server", "", `for i := 0; i < 100 && !s.ready.Load(); i++ {
	runtime.Gosched()
}`},
		variant{"Range", "s *server", "items []int", `for _, v := range items {
	if s.ready.Load() {
		sink = v
	}
}`},
		variant{"WaitsInHelper", "s *server", "", `for !s.waitReady() {
}`},
		variant{"SleepUntilReady", "s *server", "", `for !s.ready.Load() {
	time.Sleep(5 * time.Millisecond)
}`},
		variant{"TickerWait", "s *server", "", `for !s.ready.Load() {
	<-s.ticker.C
}`},
		variant{"StoreEveryRound", "s *server", "", `for !s.ready.Load() {
	s.n.Store(1)
	<-s.wake
}`},
		variant{"TimerWait", "s *server", "", `for !s.ready.Load() {
	<-time.After(10 * time.Millisecond)
}`},
		variant{"LockedCheck", "s *server", "", `for {
	s.mu.Lock()
	ok := s.ready.Load()
	s.mu.Unlock()
	if ok {
		return
	}
	s.cond.Wait()
}`},
		variant{"BusyDelay", "", "d time.Duration", `start := time.Now()
for time.Since(start) < d {
}`},
		variant{"DeadlineWork", "s *server", "deadline time.Time", `for time.Now().Before(deadline) {
	sink = sha256.Sum256(buf)
}`},
		variant{"ListWalk", "", "l *list", `for l != nil && l.v != 0 {
	l = l.next
}`},
		variant{"ClosureBlocking", "s *server", "", `go func() {
	for !s.ready.Load() {
		<-s.wake
	}
}()`},
		variant{"CASIncrFromHelper", "s *server", "", `for !s.tryIncr() {
}`},
		variant{"WaitGroupWait", "s *server", "wg *sync.WaitGroup", `for !s.ready.Load() {
	wg.Wait()
}`},
		variant{"CooperativeCompute", "", "n int", `for i := 0; i < n; i++ {
	sink = sha256.Sum256(buf)
	if i%64 == 0 {
		runtime.Gosched()
	}
}`},
	)
	return sh
}

func helperSpin() shape {
	sh := shape{dir: "helperspin", name: "Helper", rule: "SD106", want: "loop spins",
		doc: "a loop that spins on a helper that never blocks and polls another goroutine's state (SD106)."}
	sh.pos = []variant{
		{"IsReady", "s *server", "", `for !s.isReady() { WANT
}`},
		{"IsReadyGosched", "s *server", "", `for !s.isReady() { WANT
	runtime.Gosched()
}`},
		{"TryRecv", "s *server", "", `for !tryRecv(s.done) { WANT
}`},
		{"TryRecvGosched", "s *server", "", `for !tryRecv(s.done) { WANT
	runtime.Gosched()
}`},
		{"TryRecvGetter", "s *server", "", `for !tryRecv(s.Done()) { WANT
}`},
		{"TryRecvCall", "s *server", "", `for !tryRecv(doneOf(s)) { WANT
}`},
		{"TryRecvChain", "s *server", "", `for !tryRecv(s.inner.done) { WANT
}`},
		{"TryRecvCtx", "", "ctx context.Context", `for !tryRecv(ctx.Done()) { WANT
}`},
		{"TryRecvCtxInline", "", "r *http.Request", `for !tryRecv(r.Context().Done()) { WANT
}`},
		{"TryRecvParam", "", "done chan struct{}", `for !tryRecv(done) { WANT
	runtime.Gosched()
}`},
		{"TrySend", "s *server", "", `for !s.trySend(1) { WANT
}`},
		{"TrySendGosched", "s *server", "", `for !s.trySend(1) { WANT
	runtime.Gosched()
}`},
		{"Queued", "s *server", "", `for s.queued() == 0 { WANT
}`},
		{"QueuedGosched", "s *server", "", `for s.queued() == 0 { WANT
	runtime.Gosched()
}`},
		{"Getter", "s *server", "", `for !s.Ready() { WANT
	runtime.Gosched()
}`},
		{"Generic", "b *box[T]", "", `for !b.has() { WANT
	runtime.Gosched()
}`},
		{"Break", "s *server", "", `for { WANT
	if s.isReady() {
		break
	}
	runtime.Gosched()
}
count++`},
		{"Return", "s *server", "", `for { WANT
	if tryRecv(s.done) {
		return
	}
}`},
		{"Labeled", "s *server", "", `wait:
for { WANT
	if s.isReady() {
		break wait
	}
}
count++`},
		{"Closure", "s *server", "", `go func() {
	for !s.isReady() { WANT
		runtime.Gosched()
	}
	count++
}()`},
		{"Both", "s *server", "", `for !s.isReady() && !tryRecv(s.done) { WANT
}`},
	}
	sh.neg = []variant{
		{"WaitReady", "s *server", "", `for !s.waitReady() {
}`},
		{"IsReadySlow", "s *server", "", `for !s.isReady() {
	time.Sleep(time.Millisecond)
}`},
		{"IsReadyCond", "s *server", "", `s.mu.Lock()
for !s.isReady() {
	s.cond.Wait()
}
s.mu.Unlock()`},
		{"IsReadyChannel", "s *server", "", `for !s.isReady() {
	<-s.wake
}`},
		{"TryRecvBlocking", "s *server", "ctx context.Context", `for !tryRecv(s.done) {
	select {
	case <-s.wake:
	case <-ctx.Done():
		return
	}
}`},
		{"TryRecvWork", "s *server", "", `for !tryRecv(s.done) {
	sink = sha256.Sum256(buf)
}`},
		{"TryRecvWorkGosched", "s *server", "", `for !tryRecv(s.done) {
	sink = sha256.Sum256(buf)
	runtime.Gosched()
}`},
		{"TryIncr", "s *server", "", `for !s.tryIncr() {
}`},
		{"TryIncrGosched", "s *server", "", `for !s.tryIncr() {
	runtime.Gosched()
}`},
		{"PopWalk", "s *server", "", `for {
	v, ok := s.pop()
	if !ok {
		return
	}
	sink = v
}`},
		{"Counted", "s *server", "", `for i := 0; i < 10 && !s.isReady(); i++ {
}`},
		{"CountedTrySend", "s *server", "", `for i := 0; i < 3 && !s.trySend(i); i++ {
	runtime.Gosched()
}`},
		{"RangeTrySend", "s *server", "items []int", `for _, v := range items {
	if !s.trySend(v) {
		count++
	}
}`},
		{"QueuedSlow", "s *server", "", `for s.queued() == 0 {
	time.Sleep(10 * time.Millisecond)
}`},
		{"QueuedBlock", "s *server", "", `for s.queued() == 0 {
	<-s.wake
}`},
		{"TrySendThenBlock", "s *server", "", `for !s.trySend(1) {
	s.out <- 1
}`},
		{"IsReadyTimer", "s *server", "", `for !s.isReady() {
	<-time.After(5 * time.Millisecond)
}`},
		{"IsReadyTicker", "s *server", "", `for !s.isReady() {
	<-s.ticker.C
}`},
		{"GenericWait", "b *box[T]", "", `for !b.has() {
	<-b.done
}`},
		{"ClosureBlocking", "s *server", "", `go func() {
	for !s.isReady() {
		<-s.wake
	}
}()`},
		{"WaitGroup", "s *server", "wg *sync.WaitGroup", `for !s.isReady() {
	wg.Wait()
}`},
	}
	return sh
}

func sleepPoll() shape {
	sh := shape{dir: "sleeppoll", name: "Sleep", rule: "SD102", want: "polls with a .* sleep",
		doc: "a loop that polls with a sleep under 1ms, without a lock (SD102)."}
	for _, s := range flagSrcs {
		sh.pos = append(sh.pos, variant{s.name, s.recv, s.params, `for !(` + s.expr + `) {
	time.Sleep(50 * time.Microsecond) WANT
}`})
	}
	sh.pos = append(sh.pos,
		variant{"Break", "s *server", "", `for {
	if s.ready.Load() {
		break
	}
	time.Sleep(10 * time.Microsecond) WANT
}
count++`},
		variant{"Return", "s *server", "", `for {
	if s.isReady() {
		return
	}
	time.Sleep(10 * time.Microsecond) WANT
}`},
		variant{"Labeled", "s *server", "", `wait:
for {
	if s.ready.Load() {
		break wait
	}
	time.Sleep(10 * time.Microsecond) WANT
}
count++`},
		variant{"Closure", "s *server", "", `go func() {
	for !s.ready.Load() {
		time.Sleep(10 * time.Microsecond) WANT
	}
	count++
}()`},
		variant{"Const", "s *server", "", `for !s.ready.Load() {
	time.Sleep(pollEvery) WANT
}`},
		variant{"ConstExpr", "s *server", "", `for !s.ready.Load() {
	time.Sleep(time.Millisecond / 10) WANT
}`},
		variant{"Local", "s *server", "", `d := 100 * time.Microsecond
for !s.ready.Load() {
	time.Sleep(d) WANT
}`},
		variant{"FieldFromConstructor", "s *server", "", `for !s.ready.Load() {
	time.Sleep(s.idle) WANT
}`},
		variant{"PopWorker", "s *server", "", `for {
	j, ok := s.pop()
	if !ok {
		time.Sleep(50 * time.Microsecond) WANT
		continue
	}
	sink = j
}`},
		variant{"PopWorkContinue", "s *server", "", `for {
	if j, ok := s.pop(); ok {
		sink = j
		continue
	}
	time.Sleep(50 * time.Microsecond) WANT
}`},
		variant{"ChanLen", "s *server", "", `for len(s.jobs) == 0 {
	time.Sleep(20 * time.Microsecond) WANT
}`},
		variant{"CtxCond", "s *server", "ctx context.Context", `for ctx.Err() == nil && !s.ready.Load() {
	time.Sleep(20 * time.Microsecond) WANT
}`},
		variant{"TryRecv", "s *server", "", `for !tryRecv(s.done) {
	time.Sleep(20 * time.Microsecond) WANT
}`},
		variant{"AlmostMillisecond", "s *server", "", `for !s.ready.Load() {
	time.Sleep(999 * time.Microsecond) WANT
}`},
		variant{"UnderIf", "s *server", "", `for !s.closed.Load() {
	if !s.ready.Load() {
		time.Sleep(20 * time.Microsecond) WANT
	}
}`},
	)
	sh.neg = append(sh.neg,
		variant{"OneMillisecond", "s *server", "", `for !s.ready.Load() {
	time.Sleep(time.Millisecond)
}`},
		variant{"TenMilliseconds", "s *server", "", `for !s.ready.Load() {
	time.Sleep(10 * time.Millisecond)
}`},
		variant{"Backoff", "s *server", "", `d := time.Microsecond
for !s.ready.Load() {
	time.Sleep(d)
	d *= 2
}`},
		variant{"Counted", "s *server", "", `for i := 0; i < 10; i++ {
	count++
	time.Sleep(10 * time.Microsecond)
}`},
		variant{"Range", "s *server", "items []int", `for _, v := range items {
	sink = v
	time.Sleep(10 * time.Microsecond)
}`},
		variant{"Pacing", "s *server", "", `for {
	s.n.Add(1)
	time.Sleep(10 * time.Microsecond)
}`},
		variant{"PacingSkip", "s *server", "", `for {
	if !s.ready.Load() {
		continue
	}
	count++
	time.Sleep(10 * time.Microsecond)
}`},
		variant{"ChannelWait", "s *server", "", `for !s.ready.Load() {
	<-s.wake
	time.Sleep(10 * time.Microsecond)
}`},
		variant{"Cond", "s *server", "", `s.mu.Lock()
for !s.ready.Load() {
	s.cond.Wait()
}
s.mu.Unlock()`},
		variant{"BlockingSelect", "s *server", "ctx context.Context", `for !s.ready.Load() {
	select {
	case <-s.wake:
	case <-ctx.Done():
		return
	}
}`},
		variant{"TimerWait", "s *server", "", `for !s.ready.Load() {
	<-time.After(2 * time.Millisecond)
}`},
		variant{"TickerRange", "s *server", "", `for range s.ticker.C {
	if s.ready.Load() {
		return
	}
}`},
		variant{"WaitsInHelper", "s *server", "", `for !s.waitReady() {
	time.Sleep(10 * time.Microsecond)
}`},
		variant{"PopWorkerSlow", "s *server", "", `for {
	j, ok := s.pop()
	if !ok {
		time.Sleep(5 * time.Millisecond)
		continue
	}
	sink = j
}`},
		variant{"PopWorkerBlocks", "s *server", "", `for {
	j, ok := s.pop()
	if !ok {
		<-s.wake
		continue
	}
	sink = j
}`},
		variant{"ClosureSlow", "s *server", "", `go func() {
	for !s.ready.Load() {
		time.Sleep(time.Millisecond)
	}
}()`},
		variant{"GenericSlow", "b *box[T]", "", `for !b.ready.Load() {
	time.Sleep(time.Millisecond)
}`},
		variant{"WaitGroup", "s *server", "wg *sync.WaitGroup", `for !s.ready.Load() {
	wg.Wait()
	time.Sleep(10 * time.Microsecond)
}`},
		variant{"SleepInSelectBlocking", "s *server", "", `for {
	select {
	case <-s.done:
		return
	case j := <-s.jobs:
		sink = j
		time.Sleep(10 * time.Microsecond)
	}
}`},
		variant{"CountedRetry", "s *server", "", `for i := 0; i < 5 && !s.ready.Load(); i++ {
	time.Sleep(100 * time.Microsecond)
}`},
		variant{"GetterSlow", "s *server", "", `for !s.Ready() {
	time.Sleep(2 * time.Millisecond)
}`},
		variant{"TwoSeconds", "s *server", "", `for !s.ready.Load() {
	time.Sleep(2 * time.Second)
}`},
		variant{"LabeledSlow", "s *server", "", `wait:
for {
	if s.ready.Load() {
		break wait
	}
	time.Sleep(3 * time.Millisecond)
}
count++`},
	)
	return sh
}

func lockPoll() shape {
	sh := shape{dir: "lockpoll", name: "Locked", rule: "SD102", want: "polls with a .* sleep",
		doc: "the mutex-guarded queue poll: lock, check, unlock, sleep under 1ms (SD102)."}
	worker := func(lock, unlock, sleep string) string {
		return `for {
	` + lock + `
	if len(s.queue) == 0 {
		` + unlock + `
		time.Sleep(` + sleep + `) WANT
		continue
	}
	j := s.queue[0]
	s.queue = s.queue[1:]
	` + unlock + `
	sink = j
}`
	}
	sh.pos = []variant{
		{"Worker", "s *server", "", worker("s.mu.Lock()", "s.mu.Unlock()", "50 * time.Microsecond")},
		{"WorkerConst", "s *server", "", worker("s.mu.Lock()", "s.mu.Unlock()", "pollEvery")},
		{"WorkerEmbedded", "s *server", "", worker("s.Lock()", "s.Unlock()", "20 * time.Microsecond")},
		{"WorkerRW", "s *server", "", worker("s.rw.Lock()", "s.rw.Unlock()", "20 * time.Microsecond")},
		{"WorkerField", "s *server", "", worker("s.mu.Lock()", "s.mu.Unlock()", "s.idle")},
		{"WorkerLocal", "s *server", "", "d := 50 * time.Microsecond\n" + worker("s.mu.Lock()", "s.mu.Unlock()", "d")},
		{"TakeThenCheck", "s *server", "", `for {
	s.mu.Lock()
	j, ok := s.pop()
	s.mu.Unlock()
	if !ok {
		time.Sleep(50 * time.Microsecond) WANT
		continue
	}
	sink = j
}`},
		{"ReadLocked", "s *server", "", `for {
	s.rw.RLock()
	n := len(s.queue)
	s.rw.RUnlock()
	if n > 0 {
		return
	}
	time.Sleep(10 * time.Microsecond) WANT
}`},
		{"HelperPop", "s *server", "", `for {
	j, ok := s.lockedPop()
	if !ok {
		time.Sleep(100 * time.Microsecond) WANT
		continue
	}
	sink = j
}`},
		{"HelperPopDeep", "s *server", "", `for {
	j, ok := s.take()
	if !ok {
		time.Sleep(100 * time.Microsecond) WANT
		continue
	}
	sink = j
}`},
		{"HelperWorkContinue", "s *server", "", `for {
	if j, ok := s.lockedPop(); ok {
		sink = j
		continue
	}
	time.Sleep(30 * time.Microsecond) WANT
}`},
		{"HelperLen", "s *server", "", `for s.lockedLen() == 0 {
	time.Sleep(30 * time.Microsecond) WANT
}`},
		{"Generic", "b *box[T]", "", `for {
	b.mu.Lock()
	if len(b.queue) == 0 {
		b.mu.Unlock()
		time.Sleep(50 * time.Microsecond) WANT
		continue
	}
	v := b.queue[0]
	b.queue = b.queue[1:]
	b.mu.Unlock()
	sink = v
}`},
		{"Closure", "s *server", "", `go func() {
	for {
		j, ok := s.lockedPop()
		if !ok {
			time.Sleep(50 * time.Microsecond) WANT
			continue
		}
		sink = j
	}
}()`},
		{"Labeled", "s *server", "", `poll:
for {
	s.mu.Lock()
	n := len(s.queue)
	s.mu.Unlock()
	if n > 0 {
		break poll
	}
	time.Sleep(10 * time.Microsecond) WANT
}
count++`},
		{"FlagCond", "s *server", "", `for !s.ready.Load() {
	s.mu.Lock()
	count += len(s.queue)
	s.mu.Unlock()
	time.Sleep(100 * time.Microsecond) WANT
}`},
		{"CtxCond", "s *server", "ctx context.Context", `for ctx.Err() == nil {
	j, ok := s.lockedPop()
	if !ok {
		time.Sleep(50 * time.Microsecond) WANT
		continue
	}
	sink = j
}`},
		{"CtxInline", "s *server", "r *http.Request", `for r.Context().Err() == nil {
	j, ok := s.lockedPop()
	if !ok {
		time.Sleep(50 * time.Microsecond) WANT
		continue
	}
	sink = j
}`},
		{"TwoLocks", "s *server", "", `for {
	s.mu.Lock()
	n := len(s.queue)
	s.mu.Unlock()
	s.rw.RLock()
	n += len(s.jobs)
	s.rw.RUnlock()
	if n > 0 {
		return
	}
	time.Sleep(10 * time.Microsecond) WANT
}`},
		{"ConstExpr", "s *server", "", worker("s.mu.Lock()", "s.mu.Unlock()", "time.Millisecond / 20")},
	}
	sh.neg = []variant{
		{"OneMillisecond", "s *server", "", strings.Replace(worker("s.mu.Lock()", "s.mu.Unlock()", "time.Millisecond"), " WANT", "", 1)},
		{"TenMilliseconds", "s *server", "", strings.Replace(worker("s.mu.Lock()", "s.mu.Unlock()", "10 * time.Millisecond"), " WANT", "", 1)},
		{"Cond", "s *server", "", `s.mu.Lock()
for len(s.queue) == 0 {
	s.cond.Wait()
}
j := s.queue[0]
s.queue = s.queue[1:]
s.mu.Unlock()
sink = j`},
		{"ChannelWait", "s *server", "", `for {
	j, ok := s.lockedPop()
	if !ok {
		<-s.wake
		continue
	}
	sink = j
}`},
		{"ChannelWaitThenSleep", "s *server", "", `for {
	j, ok := s.lockedPop()
	if !ok {
		<-s.wake
		time.Sleep(10 * time.Microsecond)
		continue
	}
	sink = j
}`},
		{"HeldAcrossBlockingCall", "s *server", "get func() bool", `for {
	s.mu.Lock()
	ok := get()
	s.mu.Unlock()
	if !ok {
		time.Sleep(10 * time.Microsecond)
		continue
	}
	count++
}`},
		{"LockAsSignal", "s *server", "", `for !s.ready.Load() {
	s.mu.Lock()
	time.Sleep(10 * time.Microsecond)
}`},
		{"Pacing", "s *server", "", `for {
	s.mu.Lock()
	count++
	s.mu.Unlock()
	time.Sleep(10 * time.Microsecond)
}`},
		{"Backoff", "s *server", "", `d := time.Microsecond
for {
	j, ok := s.lockedPop()
	if !ok {
		time.Sleep(d)
		d *= 2
		continue
	}
	sink = j
}`},
		{"Counted", "s *server", "", `for i := 0; i < 5; i++ {
	if _, ok := s.lockedPop(); ok {
		return
	}
	time.Sleep(10 * time.Microsecond)
}`},
		{"Range", "s *server", "items []int", `for _, v := range items {
	s.mu.Lock()
	s.queue = append(s.queue, v)
	s.mu.Unlock()
	time.Sleep(10 * time.Microsecond)
}`},
		{"BlockingSelect", "s *server", "ctx context.Context", `for {
	j, ok := s.lockedPop()
	if !ok {
		select {
		case <-s.wake:
		case <-ctx.Done():
			return
		}
		continue
	}
	sink = j
}`},
		{"TimerWait", "s *server", "", `for {
	j, ok := s.lockedPop()
	if !ok {
		<-time.After(2 * time.Millisecond)
		continue
	}
	sink = j
}`},
		{"WaitGroup", "s *server", "wg *sync.WaitGroup", `for {
	j, ok := s.lockedPop()
	if !ok {
		wg.Wait()
		continue
	}
	sink = j
}`},
		{"GenericCond", "b *box[T]", "c *sync.Cond", `b.mu.Lock()
for len(b.queue) == 0 {
	c.Wait()
}
b.queue = b.queue[1:]
b.mu.Unlock()`},
		{"ClosureSlow", "s *server", "", `go func() {
	for {
		j, ok := s.lockedPop()
		if !ok {
			time.Sleep(time.Millisecond)
			continue
		}
		sink = j
	}
}()`},
		{"RangeJobs", "s *server", "", `for j := range s.jobs {
	s.mu.Lock()
	s.queue = append(s.queue, j)
	s.mu.Unlock()
}`},
		{"TickerPoll", "s *server", "", `for range s.ticker.C {
	if _, ok := s.lockedPop(); ok {
		count++
	}
}`},
		{"LockedSleepSlow", "s *server", "", `for !s.ready.Load() {
	s.mu.Lock()
	count += len(s.queue)
	s.mu.Unlock()
	time.Sleep(3 * time.Millisecond)
}`},
		{"SleepSecond", "s *server", "", `for {
	s.rw.RLock()
	n := len(s.queue)
	s.rw.RUnlock()
	if n > 0 {
		return
	}
	time.Sleep(time.Second)
}`},
	}
	return sh
}

func timerLoop() shape {
	sh := shape{dir: "timerloop", name: "Timer", rule: "SD104", want: "in a loop.*makes a new timer|makes a new timer",
		doc: "a timer made on every iteration and dropped when another case wins (SD104)."}
	recvSrcs := []src{
		{"Param", "", "jobs chan int", "", "jobs"},
		{"Field", "s *server", "", "", "s.jobs"},
		{"Getter", "s *server", "", "", "s.Done()"},
		{"Call", "s *server", "", "", "doneOf(s)"},
		{"Chain", "s *server", "", "", "s.inner.done"},
		{"Generic", "b *box[T]", "", "", "b.items"},
	}
	for _, s := range recvSrcs {
		sh.pos = append(sh.pos, variant{s.name, s.recv, s.params, `for {
	select {
	case v := <-` + s.expr + `:
		sink = v
	case <-time.After(time.Second): WANT
		count++
	}
}`})
	}
	sh.pos = append(sh.pos,
		variant{"NewTimerC", "s *server", "", `for {
	select {
	case v := <-s.jobs:
		sink = v
	case <-time.NewTimer(time.Second).C: WANT
		count++
	}
}`},
		variant{"TimerVar", "s *server", "", `for {
	t := time.NewTimer(time.Second) WANT
	select {
	case v := <-s.jobs:
		sink = v
	case <-t.C:
		count++
	}
}`},
		variant{"ChanVar", "s *server", "", `for {
	timeout := time.After(500 * time.Millisecond) WANT
	select {
	case v := <-s.jobs:
		sink = v
	case <-timeout:
		count++
	}
}`},
		variant{"Helper", "s *server", "", `for {
	select {
	case v := <-s.jobs:
		sink = v
	case <-randomTimeout(time.Second): WANT
		count++
	}
}`},
		variant{"RangeChan", "s *server", "", `for j := range s.jobs {
	select {
	case s.out <- j:
	case <-time.After(time.Second): WANT
		count++
	}
}`},
		variant{"CtxDoneReturns", "s *server", "ctx context.Context", `for {
	select {
	case <-ctx.Done():
		return
	case v := <-s.jobs:
		sink = v
	case <-time.After(time.Second): WANT
		count++
	}
}`},
		variant{"CtxInlineDone", "s *server", "r *http.Request", `for {
	select {
	case <-r.Context().Done():
		return
	case v := <-s.jobs:
		sink = v
	case <-time.After(time.Second): WANT
	}
}`},
		variant{"CondCtxJobs", "s *server", "ctx context.Context", `for ctx.Err() == nil {
	select {
	case v := <-s.jobs:
		sink = v
	case <-time.After(time.Second): WANT
	}
}`},
		variant{"Labeled", "s *server", "", `loop:
for {
	select {
	case v, ok := <-s.jobs:
		if !ok {
			break loop
		}
		sink = v
	case <-time.After(time.Second): WANT
	}
}
count++`},
		variant{"Closure", "s *server", "", `go func() {
	for {
		select {
		case v := <-s.jobs:
			sink = v
		case <-time.After(time.Second): WANT
		}
	}
}()`},
		variant{"RearmedInCase", "s *server", "", `var idle <-chan time.Time
for {
	select {
	case v := <-s.jobs:
		sink = v
		idle = time.After(time.Second) WANT
	case <-idle:
		count++
	}
}`},
		variant{"RearmedUnderIf", "s *server", "", `var flush <-chan time.Time
for {
	if len(s.queue) > 0 {
		flush = time.After(100 * time.Millisecond) WANT
	}
	select {
	case v := <-s.jobs:
		s.queue = append(s.queue, v)
	case <-flush:
		s.queue = s.queue[:0]
	}
}`},
		variant{"ContinueCase", "s *server", "", `for {
	select {
	case v := <-s.jobs:
		sink = v
		continue
	case <-time.After(time.Second): WANT
		return
	}
}`},
		variant{"FieldDuration", "s *server", "", `for {
	select {
	case v := <-s.jobs:
		sink = v
	case <-time.After(s.idle): WANT
	}
}`},
	)
	sh.neg = []variant{
		{"ResetOnce", "s *server", "", `t := time.NewTimer(time.Second)
defer t.Stop()
for {
	select {
	case v := <-s.jobs:
		sink = v
	case <-t.C:
		count++
	}
	t.Reset(time.Second)
}`},
		{"OthersLeave", "s *server", "", `for {
	select {
	case <-s.done:
		return
	case <-time.After(time.Second):
		count++
	}
}`},
		{"CondCtxDone", "", "ctx context.Context", `for ctx.Err() == nil {
	count++
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
	}
}`},
		{"CondCtxFieldDone", "s *server", "", `for s.ctx.Err() == nil {
	count++
	select {
	case <-s.ctx.Done():
	case <-time.After(time.Second):
	}
}`},
		{"CheckCtxFirst", "", "ctx context.Context", `for {
	if ctx.Err() != nil {
		return
	}
	count++
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
	}
}`},
		{"ArmOnce", "s *server", "", `var flush <-chan time.Time
for {
	select {
	case v := <-s.jobs:
		sink = v
		if flush == nil {
			flush = time.After(time.Second)
		}
	case <-flush:
		flush = nil
		count++
	}
}`},
		{"RearmOnFire", "s *server", "", `tick := time.After(time.Second)
for {
	select {
	case v := <-s.jobs:
		sink = v
	case <-tick:
		count++
		tick = time.After(time.Second)
	}
}`},
		{"StopThenNew", "s *server", "", `t := time.NewTimer(time.Second)
for {
	select {
	case v := <-s.jobs:
		sink = v
		t.Stop()
		t = time.NewTimer(time.Second)
	case <-t.C:
		count++
	}
}`},
		{"Backoff", "s *server", "", `d := time.Millisecond
for {
	select {
	case <-s.done:
		return
	case v := <-s.jobs:
		sink = v
	case <-time.After(d):
		d *= 2
	}
}`},
		{"Counted", "s *server", "", `for i := 0; i < 3; i++ {
	select {
	case v := <-s.jobs:
		sink = v
	case <-time.After(time.Second):
	}
}`},
		{"RangeSlice", "s *server", "items []int", `for _, v := range items {
	select {
	case s.out <- v:
	case <-time.After(time.Second):
	}
}`},
		{"ReturnAfter", "s *server", "", `for {
	select {
	case v := <-s.jobs:
		sink = v
	case <-time.After(time.Second):
	}
	return
}`},
		{"TickerBefore", "s *server", "", `t := time.NewTicker(time.Second)
defer t.Stop()
for {
	select {
	case v := <-s.jobs:
		sink = v
	case <-t.C:
		count++
	}
}`},
		{"WaitWithTimeout", "s *server", "", `for {
	select {
	case v := <-s.jobs:
		sink = v
		return
	case <-time.After(time.Second):
		return
	}
}`},
		{"RetrySleepOrCancel", "", "ctx context.Context, try func() error", `for {
	if try() == nil {
		return
	}
	select {
	case <-ctx.Done():
		return
	case <-time.After(time.Second):
	}
}`},
		{"HeartbeatZero", "s *server", "", `var beat <-chan time.Time
for {
	select {
	case v := <-s.jobs:
		sink = v
		beat = time.After(0)
	case <-beat:
		count++
		beat = nil
	}
}`},
		{"GenericReset", "b *box[T]", "", `t := time.NewTimer(time.Second)
defer t.Stop()
for {
	select {
	case v := <-b.items:
		sink = v
	case <-t.C:
	}
	t.Reset(time.Second)
}`},
		{"ClosureReset", "s *server", "", `go func() {
	t := time.NewTimer(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			t.Reset(time.Second)
		}
	}
}()`},
		{"LabeledLeave", "s *server", "", `loop:
for {
	select {
	case <-s.done:
		break loop
	case <-time.After(time.Second):
		break loop
	}
}
count++`},
		{"CtxInlineOthersLeave", "", "r *http.Request", `for {
	select {
	case <-r.Context().Done():
		return
	case <-time.After(time.Second):
		count++
	}
}`},
		{"CtxHoistedOthersLeave", "", "r *http.Request", `ctx := r.Context()
for {
	select {
	case <-ctx.Done():
		return
	case <-time.After(time.Second):
		count++
	}
}`},
	}
	return sh
}

func tickerLeak() shape {
	sh := shape{dir: "tickerleak", name: "Ticker", rule: "SD105", want: "ticker|time.Tick",
		doc: "a ticker never stopped, in a module whose go line is before 1.23 (SD105)."}
	for _, s := range doneSrcs {
		if s.name == "TickerField" {
			continue
		}
		sh.pos = append(sh.pos, variant{s.name, s.recv, s.params, join(s.pre, `t := time.NewTicker(time.Second) WANT
for {
	select {
	case <-`+s.expr+`:
		return
	case <-t.C:
		count++
	}
}`)})
	}
	sh.pos = append(sh.pos,
		variant{"OnlyC", "s *server", "", `c := time.NewTicker(time.Second).C WANT
for {
	select {
	case <-s.done:
		return
	case <-c:
		count++
	}
}`},
		variant{"Tick", "s *server", "", `c := time.Tick(time.Second) WANT
for {
	select {
	case <-s.done:
		return
	case <-c:
		count++
	}
}`},
		variant{"Reset", "s *server", "", `t := time.NewTicker(time.Second) WANT
for {
	select {
	case <-s.done:
		return
	case <-s.wake:
		t.Reset(time.Second)
	case <-t.C:
		count++
	}
}`},
		variant{"Labeled", "s *server", "", `t := time.NewTicker(time.Second) WANT
loop:
for {
	select {
	case <-s.done:
		break loop
	case <-t.C:
		count++
	}
}
count--`},
		variant{"CondCtx", "", "ctx context.Context", `t := time.NewTicker(time.Second) WANT
for ctx.Err() == nil {
	<-t.C
	count++
}`},
		variant{"RangeJobs", "s *server", "", `c := time.Tick(time.Second) WANT
for j := range s.jobs {
	<-c
	sink = j
}`},
		variant{"Closure", "s *server", "", `go func() {
	t := time.NewTicker(time.Second) WANT
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			count++
		}
	}
}()`},
		variant{"Jobs", "s *server", "", `t := time.NewTicker(100 * time.Millisecond) WANT
for {
	select {
	case j, ok := <-s.jobs:
		if !ok {
			return
		}
		sink = j
	case <-t.C:
		count++
	}
}`},
		variant{"FieldDuration", "s *server", "", `t := time.NewTicker(s.idle) WANT
for {
	select {
	case <-s.done:
		return
	case <-t.C:
		count++
	}
}`},
	)
	stopped := func(name, recv, params, pre, expr string) variant {
		return variant{name, recv, params, join(pre, `t := time.NewTicker(time.Second)
defer t.Stop()
for {
	select {
	case <-`+expr+`:
		return
	case <-t.C:
		count++
	}
}`)}
	}
	for _, s := range doneSrcs {
		if s.name == "TickerField" {
			continue
		}
		sh.neg = append(sh.neg, stopped("Stopped"+s.name, s.recv, s.params, s.pre, s.expr))
	}
	sh.neg = append(sh.neg,
		variant{"StoppedOnReturn", "s *server", "", `t := time.NewTicker(time.Second)
for {
	select {
	case <-s.done:
		t.Stop()
		return
	case <-t.C:
		count++
	}
}`},
		variant{"StoredInField", "s *server", "", `t := time.NewTicker(time.Second)
for !s.ready.Load() {
	<-t.C
}
s.ticker = t`},
		variant{"Forever", "s *server", "", `t := time.NewTicker(time.Second)
for {
	<-t.C
	count++
}`},
		variant{"RangeTick", "", "", `for range time.Tick(time.Second) {
	count++
}`},
		variant{"PassedOn", "s *server", "keep func(*time.Ticker)", `t := time.NewTicker(time.Second)
keep(t)
for {
	select {
	case <-s.done:
		return
	case <-t.C:
		count++
	}
}`},
		variant{"Timer", "s *server", "", `t := time.NewTimer(time.Second)
defer t.Stop()
for {
	select {
	case <-s.done:
		return
	case <-t.C:
		t.Reset(time.Second)
	}
}`},
		variant{"StoppedInClosure", "s *server", "", `go func() {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-t.C:
			count++
		}
	}
}()`},
		variant{"StoppedLabeled", "s *server", "", `t := time.NewTicker(time.Second)
defer t.Stop()
loop:
for {
	select {
	case <-s.done:
		break loop
	case <-t.C:
		count++
	}
}
count--`},
		variant{"StoppedCondCtx", "", "ctx context.Context", `t := time.NewTicker(time.Second)
defer t.Stop()
for ctx.Err() == nil {
	<-t.C
	count++
}`},
		variant{"NoTicker", "s *server", "", `for {
	select {
	case <-s.done:
		return
	case <-s.wake:
		count++
	}
}`},
	)
	return sh
}

// retrySpin is a consumer that takes from a queue with a call that never
// waits for work (a lock-free pop, a pop under the queue's own mutex) and,
// when the call finds nothing, goes round again at once: the path that
// found an item works, the path that found nothing spins. The take is a
// method, a function, a generic type's method, a wrapper; the test is a
// nil, an error, !ok, a false result, a switch; the stop check an atomic
// or a select default.
func retrySpin() shape {
	sh := shape{dir: "retryspin", name: "Retry", rule: "SD106", want: "loop retries .* at once when it finds nothing",
		doc: "a consumer's retry loop around a non-blocking take, going round at once when it finds nothing (SD106)."}
	// take spells the call and the test that finds nothing.
	type take struct{ name, recv, call, vars, empty, item string }
	takes := []take{
		{"Method", "s *server", "s.lockedPop()", "v, ok", "!ok", "v"},
		{"Wrapper", "s *server", "s.take()", "v, ok", "!ok", "v"},
		{"Func", "s *server", "popFrom(s)", "v, ok", "!ok", "v"},
		{"Err", "s *server", "s.dequeue()", "v, err", "err != nil", "v"},
		{"Generic", "b *box[T]", "b.tryPop()", "v, ok", "!ok", "v"},
		{"LockFree", "s *server", "s.lf.pop()", "n", "n == nil", "n.v"},
		{"OkFalse", "s *server", "s.lockedPop()", "v, ok", "ok == false", "v"},
	}
	for _, tk := range takes {
		sh.pos = append(sh.pos, variant{tk.name, tk.recv, "", `for { WANT
	` + tk.vars + ` := ` + tk.call + `
	if ` + tk.empty + ` {
		continue
	}
	sink = ` + tk.item + `
}`})
	}
	sh.pos = append(sh.pos,
		variant{"StopAtomic", "s *server", "", `for !s.closed.Load() { WANT
	v, err := s.dequeue()
	if err != nil {
		continue
	}
	sink = sha256.Sum256(buf[:v%8])
}`},
		variant{"StopSelect", "s *server", "", `for { WANT
	n := s.lf.pop()
	if n == nil {
		select {
		case <-s.done:
			return
		default:
		}
		continue
	}
	sink = sha256.Sum256(buf[:n.v%8])
}`},
		variant{"StopCheckFirst", "s *server", "", `for { WANT
	if s.closed.Load() {
		return
	}
	v, ok := s.take()
	if !ok {
		continue
	}
	sink = v
}`},
		variant{"StopCtx", "s *server", "ctx context.Context", `for ctx.Err() == nil { WANT
	v, ok := s.lockedPop()
	if !ok {
		continue
	}
	sink = v
}`},
		variant{"IfInitElse", "s *server", "", `for { WANT
	if v, ok := s.lockedPop(); ok {
		sink = v
	} else {
		continue
	}
}`},
		variant{"IfInitNilElse", "s *server", "", `for { WANT
	if n := s.lf.pop(); n != nil {
		sink = n.v
	} else {
		continue
	}
}`},
		variant{"FallsOff", "s *server", "", `for { WANT
	if v, ok := s.take(); ok {
		sink = v
	}
}`},
		variant{"FallsOffErr", "s *server", "", `for !s.closed.Load() { WANT
	if v, err := s.dequeue(); err == nil {
		sink = v
	}
}`},
		variant{"BoolOut", "s *server", "", `var v int
for { WANT
	if !s.tryPopInto(&v) {
		continue
	}
	sink = v
}`},
		variant{"SwitchErr", "s *server", "", `for { WANT
	switch v, err := s.dequeue(); {
	case err != nil:
		continue
	default:
		sink = v
	}
}`},
		variant{"SwitchNil", "s *server", "", `for { WANT
	switch n := s.lf.pop(); n {
	case nil:
		continue
	default:
		sink = n.v
	}
}`},
		variant{"Labeled", "s *server", "", `consume:
for { WANT
	v, ok := s.lockedPop()
	if !ok {
		continue consume
	}
	sink = v
}`},
		variant{"Gosched", "s *server", "", `for { WANT
	v, ok := s.lockedPop()
	if !ok {
		runtime.Gosched()
		continue
	}
	sink = v
}`},
		variant{"Misses", "s *server", "", `misses := 0
for { WANT
	v, ok := s.lockedPop()
	if !ok {
		misses++
		continue
	}
	sink = v
}`},
		variant{"Closure", "s *server", "", `go func() {
	for { WANT
		n := s.lf.pop()
		if n == nil {
			continue
		}
		sink = n.v
	}
}()`},
		variant{"GenericStop", "b *box[T]", "", `for !b.ready.Load() { WANT
	v, ok := b.tryPop()
	if !ok {
		continue
	}
	sink = v
}`},
	)
	sh.neg = []variant{
		{"SleepLong", "s *server", "", `for {
	v, ok := s.lockedPop()
	if !ok {
		time.Sleep(time.Millisecond)
		continue
	}
	sink = v
}`},
		{"SleepLongErr", "s *server", "", `for {
	v, err := s.dequeue()
	if err != nil {
		time.Sleep(5 * time.Millisecond)
		continue
	}
	sink = v
}`},
		{"BlockChannel", "s *server", "", `for {
	v, ok := s.lockedPop()
	if !ok {
		<-s.wake
		continue
	}
	sink = v
}`},
		{"BlockSelect", "s *server", "", `for {
	n := s.lf.pop()
	if n == nil {
		select {
		case <-s.wake:
		case <-s.done:
			return
		}
		continue
	}
	sink = n.v
}`},
		{"BlockCond", "s *server", "", `for {
	v, ok := s.take()
	if !ok {
		s.mu.Lock()
		s.cond.Wait()
		s.mu.Unlock()
		continue
	}
	sink = v
}`},
		{"BlockTicker", "s *server", "", `for {
	v, err := s.dequeue()
	if err != nil {
		<-s.ticker.C
		continue
	}
	sink = v
}`},
		{"BlockingCall", "s *server", "", `for {
	v, ok := s.waitPop()
	if !ok {
		continue
	}
	sink = v
}`},
		{"Counted", "s *server", "", `for i := 0; i < 3; i++ {
	v, ok := s.lockedPop()
	if !ok {
		continue
	}
	sink = v
}`},
		{"Tries", "s *server", "", `tries := 0
for {
	v, ok := s.lockedPop()
	if !ok {
		tries++
		if tries > 3 {
			return
		}
		continue
	}
	sink = v
}`},
		{"TriesCond", "s *server", "", `tries := 0
for tries < 3 {
	v, err := s.dequeue()
	if err != nil {
		tries++
		continue
	}
	sink = v
}`},
		{"DrainBreak", "s *server", "", `for {
	v, ok := s.lockedPop()
	if !ok {
		break
	}
	sink = v
}`},
		{"DrainReturn", "s *server", "", `for {
	n := s.lf.pop()
	if n == nil {
		return
	}
	sink = n.v
}`},
		{"DrainElse", "s *server", "", `for {
	if v, ok := s.take(); ok {
		sink = v
	} else {
		return
	}
}`},
		{"DrainSwitch", "s *server", "", `for {
	switch v, err := s.dequeue(); {
	case err != nil:
		return
	default:
		sink = v
	}
}`},
		{"LostCAS", "s *server", "", `for {
	if !s.tryIncr() {
		continue
	}
	count++
}`},
		{"IdleWorks", "s *server", "", `for {
	v, ok := s.lockedPop()
	if !ok {
		sink = sha256.Sum256(buf)
		continue
	}
	sink = v
}`},
		{"Range", "s *server", "items []int", `for range items {
	v, ok := s.lockedPop()
	if !ok {
		continue
	}
	sink = v
}`},
		{"LockForEffect", "s *server", "", `for {
	s.mu.Lock()
	s.queue = s.queue[:0]
	s.mu.Unlock()
	if s.closed.Load() {
		return
	}
}`},
		{"ReadError", "", "r *http.Request", `for {
	n, err := r.Body.Read(buf)
	if err != nil {
		continue
	}
	sink = n
}`},
		{"FuncValue", "s *server", "", `pop := func() (int, bool) { return s.lockedPop() }
for {
	v, ok := pop()
	if !ok {
		continue
	}
	sink = v
}`},
		{"OwnQueue", "s *server", "", `for {
	v, ok := s.pop()
	if !ok {
		continue
	}
	sink = v
}`},
		{"WaitsAfter", "s *server", "", `for {
	if v, ok := s.lockedPop(); ok {
		sink = v
		continue
	}
	<-s.wake
}`},
		{"SelectCtx", "s *server", "ctx context.Context", `for {
	v, ok := s.take()
	if !ok {
		select {
		case <-ctx.Done():
			return
		case <-s.wake:
		}
		continue
	}
	sink = v
}`},
		{"GenericWait", "b *box[T]", "", `for {
	v, ok := b.tryPop()
	if !ok {
		<-b.done
		continue
	}
	sink = v
}`},
		{"ClosureBlocking", "s *server", "", `go func() {
	for {
		n := s.lf.pop()
		if n == nil {
			<-s.wake
			continue
		}
		sink = n.v
	}
}()`},
		{"LabeledBreak", "s *server", "", `consume:
for {
	v, ok := s.lockedPop()
	if !ok {
		break consume
	}
	sink = v
}`},
		{"BoolOutWait", "s *server", "", `var v int
for {
	if !s.tryPopInto(&v) {
		<-s.wake
		continue
	}
	sink = v
}`},
		{"WaitGroup", "s *server", "wg *sync.WaitGroup", `for {
	v, ok := s.lockedPop()
	if !ok {
		wg.Wait()
		continue
	}
	sink = v
}`},
	}
	return sh
}
