// Unit tests of the Node bot's choices (run: npm test, or node --test test/).
'use strict';

const test = require('node:test');
const assert = require('node:assert');
const { decide, bestColor } = require('../bot');

const card = (rank, color = 'COLOR_UNSPECIFIED') => ({ rank, color });
const play = (c, extra = {}) => ({ kind: 'ACTION_KIND_PLAY', card: c, color: 'COLOR_UNSPECIFIED', uno: false, ...extra });
const simple = (kind, extra = {}) => ({ kind, card: null, color: 'COLOR_UNSPECIFIED', uno: false, ...extra });
const request = (phase, hand, legal, view = {}) => ({
  request_id: 'r',
  view: { phase, hand, hand_sizes: [hand.length, 5], active_color: 'COLOR_RED', seat: 0, ...view },
  legal_actions: legal,
});

test('plays the active colour before a higher card of another colour', () => {
  const r5 = card('RANK_FIVE', 'COLOR_RED');
  const b9 = card('RANK_NINE', 'COLOR_BLUE');
  const legal = [play(b9), play(r5), simple('ACTION_KIND_DRAW')];
  assert.strictEqual(decide(request('PHASE_PLAY', [b9, r5], legal)), 1);
});

test('sheds the card worth most and keeps wilds for need', () => {
  const r2 = card('RANK_TWO', 'COLOR_RED');
  const rs = card('RANK_SKIP', 'COLOR_RED');
  const w = card('RANK_WILD');
  const legal = [play(r2), play(rs), play(w, { color: 'COLOR_RED' }), simple('ACTION_KIND_DRAW')];
  assert.strictEqual(decide(request('PHASE_PLAY', [r2, rs, w], legal)), 1);
});

test('names the colour it holds most and always calls UNO', () => {
  const w = card('RANK_WILD');
  const g1 = card('RANK_ONE', 'COLOR_GREEN');
  const legal = ['COLOR_RED', 'COLOR_YELLOW', 'COLOR_GREEN', 'COLOR_BLUE'].flatMap((color) => [
    play(w, { color }), play(w, { color, uno: true })]);
  legal.push(simple('ACTION_KIND_DRAW'));
  const choice = legal[decide(request('PHASE_PLAY', [w, g1], legal, { active_color: 'COLOR_BLUE' }))];
  assert.strictEqual(choice.color, 'COLOR_GREEN');
  assert.strictEqual(choice.uno, true);
  assert.strictEqual(bestColor([g1, card('RANK_NINE', 'COLOR_BLUE'), card('RANK_TWO', 'COLOR_GREEN')]), 'COLOR_GREEN');
});

test('catches a missed UNO call, and calls late when it is the offender', () => {
  const catchIt = [simple('ACTION_KIND_PASS'), simple('ACTION_KIND_CATCH', { target: 1, _target: 'target' })];
  assert.strictEqual(decide(request('PHASE_CATCH_WINDOW', [], catchIt)), 1);
  const callIt = [simple('ACTION_KIND_PASS'), simple('ACTION_KIND_CALL_UNO')];
  assert.strictEqual(decide(request('PHASE_CATCH_WINDOW', [], callIt)), 1);
});

test('accepts a Wild Draw Four it cannot stack and draws with nothing to play', () => {
  const challenge = [simple('ACTION_KIND_CHALLENGE'), simple('ACTION_KIND_ACCEPT')];
  assert.strictEqual(decide(request('PHASE_CHALLENGE', [], challenge)), 1);
  assert.strictEqual(decide(request('PHASE_PLAY', [], [simple('ACTION_KIND_DRAW')])), 0);
});

test('swaps hands with the smallest hand', () => {
  const r7 = card('RANK_SEVEN', 'COLOR_RED');
  const legal = [1, 2, 3].map((target) => play(r7, { target, _target: 'target' }));
  const view = { hand_sizes: [6, 5, 1, 9] };
  assert.strictEqual(legal[decide(request('PHASE_PLAY', [r7], legal, view))].target, 2);
});
