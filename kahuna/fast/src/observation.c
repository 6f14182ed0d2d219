/* The observation of a seat's view (observation.h says what it is). */
#include "observation.h"

void encode_obs(const KState *s, int me, float *obs) {
    int them = 1 - me, k = 0;
    for (int l = 0; l < NL; l++) obs[k++] = s->bridges[l] == me ? 1.0f : 0.0f;
    for (int l = 0; l < NL; l++) obs[k++] = s->bridges[l] == them ? 1.0f : 0.0f;
    for (int i = 0; i < NI; i++) obs[k++] = s->stones[i] == me ? 1.0f : 0.0f;
    for (int i = 0; i < NI; i++) obs[k++] = s->stones[i] == them ? 1.0f : 0.0f;
    for (int c = 0; c < NI; c++) obs[k++] = (float)(s->hands[me][c] / 2.0);
    for (int c = 0; c < NI; c++) obs[k++] = (float)(s->known[them][c] / 2.0);
    for (int c = 0; c < NI; c++) obs[k++] = (float)(s->display[c] / 2.0);
    for (int c = 0; c < NI; c++) obs[k++] = (float)(s->discard_up[c] / 2.0);
    for (int c = 0; c < NI; c++) obs[k++] = (float)(s->discard_down[me][c] / 2.0);
    int down_them = 0;
    for (int c = 0; c < NI; c++) {
        int seen = s->display[c] + s->discard_up[c] + s->hands[me][c] + s->discard_down[me][c] + s->known[them][c];
        obs[k++] = (float)((PER_ISLAND - seen) / 2.0);
        down_them += s->discard_down[them][c];
    }
    obs[k++] = (float)(s->hand_size[me] / (double)HAND_LIMIT);
    obs[k++] = (float)(s->hand_size[them] / (double)HAND_LIMIT);
    obs[k++] = (float)(down_them / (double)NCARDS);
    obs[k++] = (float)(s->deck_len / (double)(NCARDS - DISPLAY_SIZE));
    obs[k++] = (float)(s->supply_bridges[me] / (double)BRIDGES);
    obs[k++] = (float)(s->supply_bridges[them] / (double)BRIDGES);
    obs[k++] = (float)(s->supply_stones[me] / (double)STONES);
    obs[k++] = (float)(s->supply_stones[them] / (double)STONES);
    for (int r = 0; r < ROUNDS; r++) obs[k++] = s->round == r + 1 ? 1.0f : 0.0f;
    obs[k++] = s->phase == FINAL ? 1.0f : 0.0f;
    obs[k++] = (float)(s->final_turns / 2.0);
    obs[k++] = s->declined ? 1.0f : 0.0f;
    static const double max_points[ROUNDS] = {1.0, 2.0, (double)STONES};
    for (int r = 0; r < ROUNDS; r++) obs[k++] = (float)(s->points[me][r] / max_points[r]);
    for (int r = 0; r < ROUNDS; r++) obs[k++] = (float)(s->points[them][r] / max_points[r]);
    obs[k++] = (float)me;
    obs[k++] = (float)s->v_nbes;
    obs[k++] = (float)s->v_ror;
}
