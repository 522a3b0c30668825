// Runtime stage, stopping JavaScript. Input: entries into and exits from V8, PostgreSQL's
// interrupt signals, plv8.execution_timeout; output: TerminateExecution on the running isolates.
//
// A tight JavaScript loop never reaches CHECK_FOR_INTERRUPTS(), so V8 must be told to stop from
// another thread. That thread sleeps until the running call's deadline, or until a signal that
// can raise an interrupt arrives: the backend's handlers for SIGINT (cancel, statement and lock
// timeouts), SIGTERM (termination) and SIGUSR1 (recovery conflicts) are wrapped to wake it. It
// has no timer of its own while calls come and go: a thread waking every few milliseconds in
// each backend that ran JavaScript recently costs a platform with hundreds of such backends
// (one per project database in use) a thread switch per backend per tick, a large share of two
// cores. While calls keep coming it still looks once a second, in case a handler was installed
// over the wrapped one; once a second has passed without a call it sleeps until the next one.
#include <semaphore.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <iterator>
#include <mutex>
#include <pthread.h>
#include <thread>
#include <vector>

#include "plv8.h"

extern "C" {
#include "miscadmin.h"
}

namespace plv8 {
namespace {

using Clock = std::chrono::steady_clock;

// Heap objects that are never destroyed: at proc_exit() the watchdog still waits on them.
std::mutex &wd_mutex = *new std::mutex();
// Posted by the wrapped signal handlers (sem_post is async-signal-safe) and by calls that find
// the watchdog asleep without a deadline.
sem_t wd_wake;
bool wd_fired = false;
std::vector<Env *> &active_stack = *new std::vector<Env *>();  // running isolates, innermost last
bool wd_sleeping = false;      // asleep until a call or a signal wakes it
unsigned long wd_entries = 0;  // calls entered so far, so a look sees calls made between looks
// plv8.execution_timeout of the outermost running call, counted from its entry.
Clock::time_point wd_started;
std::chrono::seconds wd_timeout{300};
bool timed_out = false;  // read by the backend once JavaScript has unwound

// While an interrupt is pending during a call, it is asked for again this often: a request made
// while the isolate was busy in C++ must not get lost.
constexpr auto kRepeat = std::chrono::milliseconds(4);
// While calls keep coming, the longest sleep (the fallback for a signal it was not woken by).
constexpr auto kLook = std::chrono::seconds(1);

constexpr int kInterruptSignals[] = {SIGINT, SIGTERM, SIGUSR1};
struct sigaction previous_actions[std::size(kInterruptSignals)];

void WakeOnSignal(int sig, siginfo_t *info, void *context) {
	int saved_errno = errno;
	for (size_t i = 0; i < std::size(kInterruptSignals); i++) {
		if (kInterruptSignals[i] != sig) continue;
		const struct sigaction &previous = previous_actions[i];
		if (previous.sa_flags & SA_SIGINFO)
			previous.sa_sigaction(sig, info, context);
		else
			previous.sa_handler(sig);
	}
	sem_post(&wd_wake);
	errno = saved_errno;
}

// Wraps the handlers PostgreSQL installed; a signal left at its default action or ignored is
// left so.
void WrapInterruptHandlers() {
	for (size_t i = 0; i < std::size(kInterruptSignals); i++) {
		struct sigaction current;
		if (sigaction(kInterruptSignals[i], nullptr, &current) != 0) continue;
		if (!(current.sa_flags & SA_SIGINFO) && (current.sa_handler == SIG_DFL || current.sa_handler == SIG_IGN)) continue;
		previous_actions[i] = current;
		struct sigaction wrapped = current;
		wrapped.sa_flags |= SA_SIGINFO;
		wrapped.sa_sigaction = WakeOnSignal;
		sigaction(kInterruptSignals[i], &wrapped, nullptr);
	}
}

// Sleeps until `until` (never: Clock::time_point::max()) or a post.
void Sleep(Clock::time_point until) {
	if (until == Clock::time_point::max()) {
		while (sem_wait(&wd_wake) != 0 && errno == EINTR) {
		}
		return;
	}
	// steady_clock is CLOCK_MONOTONIC on Linux, so its time points convert as they are.
	auto since_epoch = std::chrono::duration_cast<std::chrono::nanoseconds>(until.time_since_epoch()).count();
	struct timespec ts;
	ts.tv_sec = static_cast<time_t>(since_epoch / 1000000000);
	ts.tv_nsec = static_cast<long>(since_epoch % 1000000000);
	while (sem_clockwait(&wd_wake, CLOCK_MONOTONIC, &ts) != 0 && errno == EINTR) {
	}
}

void WatchdogMain() {
	std::unique_lock<std::mutex> lock(wd_mutex);
	unsigned long seen = wd_entries;
	for (;;) {
		const auto now = Clock::now();
		auto wake = now + kLook;
		const bool running = !active_stack.empty();
		if (!running && seen == wd_entries) {
			wd_sleeping = true;
			wake = Clock::time_point::max();
		}
		seen = wd_entries;
		if (running) {
			const auto deadline = wd_started + wd_timeout;
			if (!timed_out && now >= deadline) {
				timed_out = true;
				terminate_requested = true;
			} else if (!timed_out) {
				wake = std::min(wake, deadline);
			}
			if ((InterruptPending && (QueryCancelPending || ProcDiePending)) || terminate_requested.load()) {
				wd_fired = true;
				for (Env *e : active_stack) e->isolate->TerminateExecution();
				wake = now + kRepeat;
			}
		}
		lock.unlock();
		Sleep(wake);
		lock.lock();
		wd_sleeping = false;
	}
}

}  // namespace

void StartWatchdog() {
	sem_init(&wd_wake, 0, 0);
	WrapInterruptHandlers();
	std::thread watchdog(WatchdogMain);
	pthread_setname_np(watchdog.native_handle(), "plv8 watchdog");
	watchdog.detach();
}

bool JsRunning() {
	std::lock_guard<std::mutex> lock(wd_mutex);
	return !active_stack.empty();
}

void EnterJs(Env *env) {
	std::lock_guard<std::mutex> lock(wd_mutex);
	env->depth++;
	if (active_stack.empty()) {
		wd_started = Clock::now();
		wd_timeout = std::chrono::seconds(execution_timeout_s);
		timed_out = false;
	}
	active_stack.push_back(env);
	wd_entries++;
	if (wd_sleeping) {
		wd_sleeping = false;
		sem_post(&wd_wake);
	}
}

bool LeaveJs(Env *env, bool terminated) {
	bool fired;
	{
		std::lock_guard<std::mutex> lock(wd_mutex);
		env->depth--;
		active_stack.pop_back();
		fired = wd_fired || terminate_requested.load();
		if (active_stack.empty()) {
			wd_fired = false;
			terminate_requested = false;
		}
	}
	terminated = terminated || fired || env->memory_exceeded || env->isolate->IsExecutionTerminating();
	if (!terminated) return false;
	if (env->depth == 0) {
		env->isolate->CancelTerminateExecution();
		if (env->memory_exceeded) env->doomed = true;
	}
	return true;
}

void ForceTerminate(Env *env) {
	terminate_requested = true;
	env->isolate->TerminateExecution();
	sem_post(&wd_wake);
}

bool TimedOut(long *timeout_s) {
	std::lock_guard<std::mutex> lock(wd_mutex);
	*timeout_s = static_cast<long>(wd_timeout.count());
	return timed_out;
}

}  // namespace plv8
