// An arena UNO bot in C++, straight from protos/arena/v1/*.proto with the sync
// gRPC API (ClientReaderWriter): no SDK.
//
// How it plays (every answer is an index into the server's legal actions):
// - plays a card whenever one plays; of those, the one worth most points
//   (action cards, then high numbers), a card of the colour it holds most
//   breaking ties; a wild only when no coloured card plays, Wild Draw Four
//   before plain Wild;
// - holds a Draw Two back while the next player still has many cards, and
//   plays it at once on a player near UNO;
// - names the colour it holds most (then the one worth most);
// - always calls UNO, catches every missed call, plays the card it just drew,
//   stacks under progressive rules, jumps in whenever it can, swaps hands with
//   the smallest hand; accepts a Wild Draw Four it cannot stack.
//
// Run: ARENA_SERVER=host:port ARENA_TOKEN=... build/arena_bot
// (with ARENA_TLS_CA=ca.pem, or ARENA_TLS=1, against a server that serves TLS)
// Exit status: 0 stopped (SIGINT/SIGTERM), 1 gave up reconnecting, 2 token refused.

#include <grpcpp/grpcpp.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cctype>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "arena/v1/bot.grpc.pb.h"

namespace v1 = arena::v1;

namespace {

std::atomic<bool> stopping{false};
std::mutex context_mutex;
grpc::ClientContext* current_context = nullptr;

void log(const std::string& text) {
  std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y-%m-%dT%H:%M:%S", std::gmtime(&now));
  std::cerr << stamp << " cpp-bot: " << text << std::endl;
}

std::string env_or(const char* name, const std::string& fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? value : fallback;
}

// ------------------------------------------------------------------ strategy

const std::array<v1::Color, 4> kColors = {v1::COLOR_RED, v1::COLOR_YELLOW, v1::COLOR_GREEN,
                                          v1::COLOR_BLUE};

bool is_wild(const v1::Card& card) { return card.color() == v1::COLOR_UNSPECIFIED; }

int points(const v1::Card& card) {
  switch (card.rank()) {
    case v1::RANK_SKIP:
    case v1::RANK_REVERSE:
    case v1::RANK_DRAW_TWO:
      return 20;
    case v1::RANK_WILD:
    case v1::RANK_WILD_DRAW_FOUR:
      return 50;
    case v1::RANK_WILD_SHUFFLE_HANDS:
    case v1::RANK_WILD_CUSTOMIZABLE:
      return 40;
    default:  // RANK_ZERO is 1 … RANK_NINE is 10 on the wire
      return card.rank() >= v1::RANK_ZERO && card.rank() <= v1::RANK_NINE
                 ? card.rank() - v1::RANK_ZERO
                 : 0;
  }
}

bool same_card(const v1::Card& a, const v1::Card& b) {
  return a.rank() == b.rank() && a.color() == b.color();
}

std::vector<v1::Card> without_one(const v1::SeatView& view, const v1::Card& card) {
  std::vector<v1::Card> rest(view.hand().begin(), view.hand().end());
  auto it = std::find_if(rest.begin(), rest.end(),
                         [&](const v1::Card& c) { return same_card(c, card); });
  if (it != rest.end()) rest.erase(it);
  return rest;
}

int count_color(const std::vector<v1::Card>& hand, v1::Color color) {
  return static_cast<int>(std::count_if(hand.begin(), hand.end(),
                                        [&](const v1::Card& c) { return c.color() == color; }));
}

// The colour held most, then the one whose cards are worth most.
v1::Color best_color(const std::vector<v1::Card>& hand) {
  v1::Color best = kColors[0];
  std::pair<int, int> best_key{-1, -1};
  for (v1::Color color : kColors) {
    int worth = 0;
    for (const auto& c : hand) {
      if (c.color() == color) worth += points(c);
    }
    std::pair<int, int> key{count_color(hand, color), worth};
    if (key > best_key) {
      best = color;
      best_key = key;
    }
  }
  return best;
}

int seat_after(const v1::SeatView& view, int seat) {
  int n = static_cast<int>(view.num_players());
  if (n <= 0) return seat;
  int step = view.direction() < 0 ? -1 : 1;
  std::vector<bool> active(n, view.active_seats_size() == 0);
  for (auto s : view.active_seats()) {
    if (static_cast<int>(s) < n) active[s] = true;
  }
  int next = seat;
  for (int i = 0; i < n; ++i) {
    next = ((next + step) % n + n) % n;
    if (active[next]) return next;
  }
  return seat;
}

using Key = std::tuple<int, int, int, int, int, int, int>;

// How much the bot likes a PLAY action; tuples compare element by element.
Key play_key(const v1::SeatView& view, const v1::Action& action) {
  const v1::Card& card = action.card();
  std::vector<v1::Card> rest = without_one(view, card);
  int next = seat_after(view, static_cast<int>(view.seat()));
  int next_size = next < view.hand_sizes_size() ? static_cast<int>(view.hand_sizes(next)) : 7;
  int hold = card.rank() == v1::RANK_DRAW_TWO && next_size > 4 && rest.size() > 3 ? 1 : 0;
  int colour = is_wild(card) ? (action.color() == best_color(rest) ? 1 : 0)
                             : count_color(rest, card.color());
  int target = 0;
  if (action.has_target() && static_cast<int>(action.target()) < view.hand_sizes_size()) {
    target = -static_cast<int>(view.hand_sizes(action.target()));
  }
  return Key{action.uno() ? 1 : 0,
             is_wild(card) ? 0 : 1,
             1 - hold,
             card.rank() == v1::RANK_WILD_DRAW_FOUR ? 1 : 0,
             points(card),
             colour,
             target};
}

int first_of(const v1::DecisionRequest& request, std::initializer_list<v1::ActionKind> kinds) {
  for (v1::ActionKind kind : kinds) {
    for (int i = 0; i < request.legal_actions_size(); ++i) {
      if (request.legal_actions(i).kind() == kind) return i;
    }
  }
  return -1;
}

int best_play(const v1::DecisionRequest& request) {
  int best = -1;
  Key best_key{};
  for (int i = 0; i < request.legal_actions_size(); ++i) {
    const v1::Action& action = request.legal_actions(i);
    if (action.kind() != v1::ACTION_KIND_PLAY) continue;
    Key key = play_key(request.view(), action);
    if (best < 0 || key > best_key) {
      best = i;
      best_key = key;
    }
  }
  return best;
}

// The index of the action to take.
int decide(const v1::DecisionRequest& request) {
  const v1::SeatView& view = request.view();
  int choice = -1;
  switch (view.phase()) {
    case v1::PHASE_CATCH_WINDOW:
      choice = first_of(request, {v1::ACTION_KIND_CALL_UNO, v1::ACTION_KIND_CATCH});
      break;
    case v1::PHASE_CHOOSE_COLOR: {
      v1::Color color = best_color({view.hand().begin(), view.hand().end()});
      for (int i = 0; i < request.legal_actions_size() && choice < 0; ++i) {
        if (request.legal_actions(i).color() == color) choice = i;
      }
      break;
    }
    default:  // PLAY, PLAY_DRAWN, CHALLENGE (stack), STACK, JUMP_IN
      choice = best_play(request);
  }
  if (choice < 0) {
    choice = first_of(request, {v1::ACTION_KIND_DRAW, v1::ACTION_KIND_KEEP,
                                v1::ACTION_KIND_ACCEPT, v1::ACTION_KIND_PASS});
  }
  return std::max(choice, 0);
}

// --------------------------------------------------------------- connection

enum class Ended { kRetry, kStopped, kRefused };

// Plaintext, unless ARENA_TLS_CA names a PEM file of the certificates to trust
// (or ARENA_TLS=1 trusts the system's): then TLS. Null if the file cannot be read.
std::shared_ptr<grpc::ChannelCredentials> channel_credentials() {
  const std::string ca_file = env_or("ARENA_TLS_CA", "");
  std::string tls = env_or("ARENA_TLS", "");
  std::transform(tls.begin(), tls.end(), tls.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (ca_file.empty() &&
      (tls.empty() || tls == "0" || tls == "false" || tls == "no" || tls == "off")) {
    return grpc::InsecureChannelCredentials();
  }
  grpc::SslCredentialsOptions options;
  if (!ca_file.empty()) {
    std::ifstream file(ca_file, std::ios::binary);
    std::stringstream roots;
    roots << file.rdbuf();
    if (!file || roots.str().find("-----BEGIN CERTIFICATE-----") == std::string::npos) {
      log("cannot read the TLS certificates in ARENA_TLS_CA=" + ca_file);
      return nullptr;
    }
    options.pem_root_certs = roots.str();
  }
  return grpc::SslCredentials(options);
}

Ended play_once(const std::string& server, const std::string& token, int max_tables,
                const std::shared_ptr<grpc::ChannelCredentials>& credentials,
                bool& welcomed) {
  auto channel = grpc::CreateChannel(server, credentials);
  auto stub = v1::BotService::NewStub(channel);
  grpc::ClientContext context;
  context.AddMetadata("authorization", "Bearer " + token);
  {
    std::lock_guard<std::mutex> lock(context_mutex);
    current_context = &context;
  }
  if (stopping) context.TryCancel();
  log("connecting to " + server);
  std::unique_ptr<grpc::ClientReaderWriter<v1::BotMessage, v1::ServerMessage>> stream(
      stub->Connect(&context));

  v1::BotMessage hello;
  hello.mutable_hello()->set_bot_version("cpp-sample 0.1.0");
  hello.mutable_hello()->set_max_tables(static_cast<uint32_t>(max_tables));
  hello.mutable_hello()->set_events_in_requests(true);
  stream->Write(hello);

  std::map<std::string, uint32_t> seats;
  v1::ServerMessage message;
  while (stream->Read(&message)) {
    switch (message.kind_case()) {
      case v1::ServerMessage::kWelcome:
        welcomed = true;
        log("welcomed as " + message.welcome().bot_name());
        break;
      case v1::ServerMessage::kGameStart:
        seats[message.game_start().game_id()] = message.game_start().seat();
        break;
      case v1::ServerMessage::kDecisionRequest: {
        const v1::DecisionRequest& request = message.decision_request();
        v1::BotMessage answer;
        answer.mutable_decision()->set_request_id(request.request_id());
        answer.mutable_decision()->set_action_index(static_cast<uint32_t>(decide(request)));
        stream->Write(answer);
        break;
      }
      case v1::ServerMessage::kGameEnd: {
        const v1::GameEnd& end = message.game_end();
        auto seat = seats.find(end.game_id());
        std::string rank = "?";
        if (seat != seats.end() && static_cast<int>(seat->second) < end.outcome().ranks_size()) {
          rank = std::to_string(end.outcome().ranks(seat->second));
        }
        log("game " + end.game_id() + " over (" + end.reason() + "): rank " + rank);
        seats.erase(end.game_id());
        break;
      }
      case v1::ServerMessage::kError:
        log("server error " + std::to_string(message.error().code()) + ": " +
            message.error().message());
        break;
      default:
        break;
    }
  }
  stream->WritesDone();
  grpc::Status status = stream->Finish();
  {
    std::lock_guard<std::mutex> lock(context_mutex);
    current_context = nullptr;
  }
  if (stopping) return Ended::kStopped;
  if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED) {
    log("the server rejected the token (" + status.error_message() + "); check ARENA_TOKEN");
    return Ended::kRefused;
  }
  if (status.error_code() == grpc::StatusCode::INVALID_ARGUMENT) {
    log("the server refused the stream: " + status.error_message());
    return Ended::kRefused;
  }
  log("connection lost (" + std::to_string(status.error_code()) + " " + status.error_message() +
      ")");
  return Ended::kRetry;
}

// SIGINT/SIGTERM are blocked in every thread and taken here, so cancelling the
// call is ordinary code rather than a signal handler.
void watch_signals(sigset_t signals) {
  int signal_number = 0;
  sigwait(&signals, &signal_number);
  log("signal " + std::to_string(signal_number) + ": stopping");
  stopping = true;
  std::lock_guard<std::mutex> lock(context_mutex);
  if (current_context != nullptr) current_context->TryCancel();
}

}  // namespace

int main() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  std::thread(watch_signals, signals).detach();

  const std::string server = env_or("ARENA_SERVER", "127.0.0.1:50051");
  const std::string token = env_or("ARENA_TOKEN", "");
  const int max_tables = std::atoi(env_or("ARENA_MAX_TABLES", "4").c_str());
  if (token.empty()) log("no token: set ARENA_TOKEN");
  const auto credentials = channel_credentials();
  if (credentials == nullptr) return 2;

  auto last_contact = std::chrono::steady_clock::now();
  auto delay = std::chrono::milliseconds(200);
  while (!stopping) {
    bool welcomed = false;
    Ended ended = play_once(server, token, max_tables, credentials, welcomed);
    if (ended == Ended::kStopped) return 0;
    if (ended == Ended::kRefused) return 2;
    auto now = std::chrono::steady_clock::now();
    if (welcomed) {
      last_contact = now;
      delay = std::chrono::milliseconds(200);
    } else if (now - last_contact > std::chrono::seconds(60)) {
      log("giving up: no connection to " + server + " for 60 s");
      return 1;
    }
    log("reconnecting in " + std::to_string(delay.count()) + " ms");
    for (auto waited = std::chrono::milliseconds(0); waited < delay && !stopping;
         waited += std::chrono::milliseconds(50)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    delay = std::min(delay * 2, std::chrono::milliseconds(5000));
  }
  return 0;
}
