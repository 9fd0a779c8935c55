// The attacker for the race tests, in its own process so it truly runs alongside the tools:
// keeps swapping `race` (a directory <-> a link to outside) and `final.txt` (a file <-> a link to
// an outside file) with atomic renames until it is told to stop or its time is up.
import { existsSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';

const [root, ms] = [process.argv[2], Number(process.argv[3])];
const p = (name) => path.join(root, name);
const end = Date.now() + ms;
let swaps = 0;
while (Date.now() < end) {
  try {
    renameSync(p('.race-dir'), p('race'));
    renameSync(p('race'), p('.race-dir'));
    renameSync(p('.race-link'), p('race'));
    renameSync(p('race'), p('.race-link'));
    renameSync(p('.final-file'), p('final.txt'));
    renameSync(p('final.txt'), p('.final-file'));
    renameSync(p('.final-link'), p('final.txt'));
    renameSync(p('final.txt'), p('.final-link'));
    swaps += 4;
  } catch {
    // A tool may have created `race` (as a parent directory) or `final.txt`: clear whatever sits
    // there now so the swapping goes on. The attacker may do anything inside the root.
    for (const name of ['race', 'final.txt']) {
      try {
        rmSync(p(name), { recursive: true, force: true });
      } catch {}
    }
    if (!existsSync(p('.race-dir')) || !existsSync(p('.final-file'))) break;
  }
}
process.stdout.write(String(swaps));
