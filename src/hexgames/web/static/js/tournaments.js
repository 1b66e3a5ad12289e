// The tournaments page (drawn by the server): keeps each "starts in" countdown running.

import { countdowns } from "./tournament_clock.js";

countdowns(document);
