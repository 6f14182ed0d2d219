/* Player views and determinization (view.h says what they are). */
#include "view.h"

#include <string.h>

const char *view_init(View *v, int seat, const int hs[2], const int ds[2]) {
    KState *b = &v->base;
    if (seat < 0 || seat > 1) return "seat must be 0 or 1";
    if (b->phase == OVER || b->to_move != seat) return "search is for the seat to move in a running game";
    int other = 1 - seat;
    if (hs[seat] || ds[seat] || hs[other] < 0 || ds[other] < 0 || hs[other] > HAND_LIMIT || ds[other] > NCARDS)
        return "hidden slots belong to the other seat and are small";
    /* The unseen pool: two of each card minus what the viewer can locate. */
    int pool_len = 0;
    for (int cc = 0; cc < NI; cc++) {
        if (b->deck[cc] != 0 || b->discard_down[other][cc] != 0 || b->hands[other][cc] != b->known[other][cc])
            return "view fields must leave the hidden cards out";
        int parts[5] = {b->display[cc], b->discard_up[cc], b->hands[seat][cc], b->discard_down[seat][cc],
                        b->known[other][cc]};
        for (int k = 0; k < 5; k++)
            if (parts[k] < 0 || parts[k] > PER_ISLAND) return "card counts must be 0-2";
        int unseen = PER_ISLAND - (parts[0] + parts[1] + parts[2] + parts[3] + parts[4]);
        if (unseen < 0) return "a card is in more places than it has copies";
        for (int k = 0; k < unseen; k++) v->pool[pool_len++] = (int8_t)cc;
    }
    for (int i = NI; i < NCARDS; i++)
        if (b->deck[i] != 0) return "view fields must leave the deck out";
    if (pool_len != hs[other] + ds[other] + b->deck_len)
        return "inconsistent player view: unseen cards do not fill the hidden places";
    v->pool_len = pool_len;
    v->seat = seat;
    v->hand_slots[seat] = v->down_slots[seat] = 0;
    v->hand_slots[other] = hs[other];
    v->down_slots[other] = ds[other];
    /* Check the view by checking one determinization of it. */
    KState probe = *b;
    int pos = 0;
    for (int i = 0; i < hs[other]; i++) probe.hands[other][v->pool[pos++]]++;
    for (int i = 0; i < ds[other]; i++) probe.discard_down[other][v->pool[pos++]]++;
    for (int i = 0; i < b->deck_len; i++) probe.deck[i] = v->pool[pos++];
    const char *problem = check_state(&probe);
    if (problem) return problem;
    derive(&probe);
    if (!check_state_derived(&probe)) return "a hand above the limit or a stone without a majority";
    return NULL;
}

void determinize(const View *v, MT *rng, KState *out) {
    int8_t pool[NCARDS];
    memcpy(pool, v->pool, (size_t)v->pool_len);
    mt_shuffle(rng, pool, v->pool_len);
    *out = v->base;
    int pos = 0;
    for (int p = 0; p < 2; p++) {
        if (p == v->seat) continue;
        for (int i = 0; i < v->hand_slots[p]; i++) out->hands[p][pool[pos + i]]++;
        pos += v->hand_slots[p];
        for (int i = 0; i < v->down_slots[p]; i++) out->discard_down[p][pool[pos + i]]++;
        pos += v->down_slots[p];
    }
    out->deck_len = (int8_t)(v->pool_len - pos);
    for (int i = 0; i < out->deck_len; i++) out->deck[i] = pool[pos + i];
    derive(out);
}
