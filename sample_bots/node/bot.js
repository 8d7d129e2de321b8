#!/usr/bin/env node
// An arena UNO bot in Node.js, written straight from protos/arena/v1/*.proto with
// @grpc/grpc-js and @grpc/proto-loader: no SDK, no generated code.
//
// How it plays (every answer is an index into the server's legal actions):
// - plays a card whenever one plays: a card of the active colour first, then the
//   one worth most points (action cards, then high numbers); a wild only when no
//   coloured card plays, Wild Draw Four before plain Wild;
// - names the colour it holds most (then the one worth most);
// - always calls UNO, catches every missed call, plays the card it just drew,
//   stacks under progressive rules, jumps in whenever it can;
// - swaps hands (Seven-O, Swap Hands) with the smallest hand;
// - accepts a Wild Draw Four (stacks one under progressive rules), never challenges.
//
// Run: ARENA_SERVER=host:port ARENA_TOKEN=... node bot.js
// (with ARENA_TLS_CA=ca.pem, or ARENA_TLS=1, against a server that serves TLS)
// Exit status: 0 stopped (SIGINT/SIGTERM), 1 gave up reconnecting, 2 token refused.
'use strict';

const fs = require('fs');
const path = require('path');
const grpc = require('@grpc/grpc-js');
const protoLoader = require('@grpc/proto-loader');

// A submitted copy has the .proto files its build copied beside it; the repository's
// sits two folders below them.
const BESIDE = path.join(__dirname, 'protos');
const PROTOS = fs.existsSync(path.join(BESIDE, 'arena'))
  ? BESIDE : path.resolve(__dirname, '..', '..', 'protos');
const definition = protoLoader.loadSync(path.join(PROTOS, 'arena', 'v1', 'bot.proto'), {
  includeDirs: [PROTOS],
  keepCase: true,
  longs: Number,
  enums: String,
  defaults: true,
  arrays: true,
  oneofs: true,
});
const arena = grpc.loadPackageDefinition(definition).arena.v1;

const SERVER = process.env.ARENA_SERVER || '127.0.0.1:50051';
const TOKEN = process.env.ARENA_TOKEN || '';
const MAX_TABLES = Number(process.env.ARENA_MAX_TABLES || 4);
const GIVE_UP_AFTER_MS = 60000;
const COLORS = ['COLOR_RED', 'COLOR_YELLOW', 'COLOR_GREEN', 'COLOR_BLUE'];
const POINTS = {
  RANK_SKIP: 20, RANK_REVERSE: 20, RANK_DRAW_TWO: 20,
  RANK_WILD: 50, RANK_WILD_DRAW_FOUR: 50, RANK_WILD_SHUFFLE_HANDS: 40, RANK_WILD_CUSTOMIZABLE: 40,
};
const NUMBERS = ['RANK_ZERO', 'RANK_ONE', 'RANK_TWO', 'RANK_THREE', 'RANK_FOUR', 'RANK_FIVE',
  'RANK_SIX', 'RANK_SEVEN', 'RANK_EIGHT', 'RANK_NINE'];
NUMBERS.forEach((rank, value) => { POINTS[rank] = value; });

function log(...parts) {
  console.error(new Date().toISOString(), 'node-bot:', ...parts);
}

// ------------------------------------------------------------------ strategy

const isWild = (card) => !card || card.color === 'COLOR_UNSPECIFIED';
const points = (card) => (card ? POINTS[card.rank] || 0 : 0);
const hasTarget = (action) => action._target === 'target';

function sameCard(a, b) {
  return a && b && a.rank === b.rank && a.color === b.color;
}

function withoutOne(hand, card) {
  const rest = hand.slice();
  const at = rest.findIndex((c) => sameCard(c, card));
  if (at >= 0) rest.splice(at, 1);
  return rest;
}

// The colour held most, then the one whose cards are worth most.
function bestColor(hand) {
  let best = COLORS[0];
  let bestKey = [-1, -1];
  for (const color of COLORS) {
    const mine = hand.filter((c) => c.color === color);
    const key = [mine.length, mine.reduce((sum, c) => sum + points(c), 0)];
    if (key[0] > bestKey[0] || (key[0] === bestKey[0] && key[1] > bestKey[1])) {
      best = color;
      bestKey = key;
    }
  }
  return best;
}

// How much the bot likes a PLAY action; compared element by element.
function playKey(view, action) {
  const card = action.card;
  const rest = withoutOne(view.hand, card);
  const colourKey = isWild(card)
    ? (action.color === bestColor(rest) ? 1 : 0)
    : rest.filter((c) => c.color === card.color).length;
  const target = hasTarget(action) ? -(view.hand_sizes[action.target] || 0) : 0;
  return [
    action.uno ? 1 : 0,
    isWild(card) ? 0 : 1,
    !isWild(card) && card.color === view.active_color ? 1 : 0,
    card.rank === 'RANK_WILD_DRAW_FOUR' ? 1 : 0,
    points(card),
    colourKey,
    target,
  ];
}

function greater(a, b) {
  for (let i = 0; i < a.length; i += 1) {
    if (a[i] !== b[i]) return a[i] > b[i];
  }
  return false;
}

function firstOf(legal, ...kinds) {
  for (const kind of kinds) {
    const at = legal.findIndex((a) => a.kind === kind);
    if (at >= 0) return at;
  }
  return -1;
}

function bestPlay(view, legal) {
  let best = -1;
  let bestKey = null;
  legal.forEach((action, index) => {
    if (action.kind !== 'ACTION_KIND_PLAY') return;
    const key = playKey(view, action);
    if (best < 0 || greater(key, bestKey)) {
      best = index;
      bestKey = key;
    }
  });
  return best;
}

// Index of the action to take for a DecisionRequest.
function decide(request) {
  const view = request.view;
  const legal = request.legal_actions;
  let choice = -1;
  switch (view.phase) {
    case 'PHASE_CATCH_WINDOW':
      choice = firstOf(legal, 'ACTION_KIND_CALL_UNO', 'ACTION_KIND_CATCH');
      break;
    case 'PHASE_CHOOSE_COLOR': {
      const color = bestColor(view.hand);
      choice = legal.findIndex((a) => a.color === color);
      break;
    }
    default: // PLAY, PLAY_DRAWN, STACK, JUMP_IN
      choice = bestPlay(view, legal);
  }
  if (choice < 0) {
    choice = firstOf(legal, 'ACTION_KIND_DRAW', 'ACTION_KIND_KEEP', 'ACTION_KIND_ACCEPT',
      'ACTION_KIND_PASS');
  }
  return Math.max(choice, 0);
}

// --------------------------------------------------------------- connection

const seats = new Map(); // game_id -> our seat
let stopping = false;
let call = null;
let lastContact = Date.now();
let delayMs = 200;
let credentials = null; // set once, before the first connect

function handle(message) {
  switch (message.kind) {
    case 'welcome':
      log(`welcomed as ${message.welcome.bot_name} by ${message.welcome.server_version}`);
      delayMs = 200;
      break;
    case 'game_start':
      seats.set(message.game_start.game_id, message.game_start.seat);
      break;
    case 'decision_request': {
      const request = message.decision_request;
      const index = decide(request);
      call.write({ decision: { request_id: request.request_id, action_index: index } });
      break;
    }
    case 'game_end': {
      const end = message.game_end;
      const seat = seats.get(end.game_id);
      log(`game ${end.game_id} over (${end.reason}): rank ${seat === undefined ? '?' : end.outcome.ranks[seat]}`);
      seats.delete(end.game_id);
      break;
    }
    case 'error':
      log(`server error ${message.error.code}: ${message.error.message}`);
      break;
    default:
      break;
  }
}

// Plaintext, unless ARENA_TLS_CA names a PEM file of the certificates to trust
// (or ARENA_TLS=1 trusts the system's): then TLS. Null if the file cannot be read.
function channelCredentials() {
  const caFile = process.env.ARENA_TLS_CA || '';
  const tls = (process.env.ARENA_TLS || '').toLowerCase();
  if (!caFile && ['', '0', 'false', 'no', 'off'].includes(tls.trim())) {
    return grpc.credentials.createInsecure();
  }
  if (!caFile) return grpc.credentials.createSsl();
  let roots;
  try {
    roots = fs.readFileSync(caFile);
  } catch (error) {
    log(`cannot read the TLS certificates in ARENA_TLS_CA=${caFile}: ${error.message}`);
    return null;
  }
  if (!roots.includes('-----BEGIN CERTIFICATE-----')) {
    log(`ARENA_TLS_CA=${caFile} holds no PEM certificate`);
    return null;
  }
  return grpc.credentials.createSsl(roots);
}

function connect() {
  const client = new arena.BotService(SERVER, credentials);
  const metadata = new grpc.Metadata();
  metadata.set('authorization', `Bearer ${TOKEN}`);
  log(`connecting to ${SERVER}`);
  call = client.Connect(metadata);
  let ended = false;
  const finish = (status) => {
    if (ended) return;
    ended = true;
    client.close();
    if (stopping) process.exit(0);
    if (status.code === grpc.status.UNAUTHENTICATED) {
      log(`the server rejected the token (${status.details}); check ARENA_TOKEN`);
      process.exit(2);
    }
    if (status.code === grpc.status.INVALID_ARGUMENT) {
      log(`the server refused the stream: ${status.details}`);
      process.exit(2);
    }
    if (Date.now() - lastContact > GIVE_UP_AFTER_MS) {
      log(`giving up: no connection to ${SERVER} for ${GIVE_UP_AFTER_MS / 1000} s`);
      process.exit(1);
    }
    log(`connection lost (${status.code} ${status.details}); reconnecting in ${delayMs} ms`);
    setTimeout(connect, delayMs);
    delayMs = Math.min(delayMs * 2, 5000);
  };
  call.on('data', (message) => {
    lastContact = Date.now(); // the server was there until now: give up only after it is gone
    try {
      handle(message);
    } catch (error) {
      log(`could not handle ${message.kind}: ${error.stack}`);
    }
  });
  call.on('error', finish); // a call that failed: its status
  call.on('status', finish); // every call ends with one (OK: the server closed it)
  call.write({
    hello: {
      bot_version: 'node-sample 0.1.0', max_tables: MAX_TABLES, events_in_requests: true,
    },
  });
}

function stop() {
  stopping = true;
  if (call) call.cancel();
  setTimeout(() => process.exit(0), 1000).unref();
}

process.on('SIGINT', stop);
process.on('SIGTERM', stop);

if (require.main === module) {
  if (!TOKEN) log('no token: set ARENA_TOKEN');
  credentials = channelCredentials();
  if (credentials === null) process.exit(2);
  connect();
}

module.exports = { decide, bestColor, playKey };
