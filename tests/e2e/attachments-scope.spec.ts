/**
 * A file attached for one question goes with that question: the next question (about airports) is
 * asked without it and shows none of its bad-row notes, unless "Keep for next questions" is ticked.
 */
import { expect, test } from './fixtures';
import { openApp, shot } from './workspace-helpers';

const CSV = ['name,lat,lon,kind', 'Lyon depot,45.7485,4.8467,depot', 'Bad one,north,4.8,depot', 'Geneva office,46.2044,6.1432,office'].join('\n');
const BAD = 'my-sites.csv line 3';

async function run(page: import('@playwright/test').Page, q: string): Promise<void> {
  await page.getByTestId('ask-query').fill(q);
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-busy')).toHaveCount(0, { timeout: 30_000 });
  await expect(page.getByTestId('ask-thread').or(page.getByTestId('ask-count'))).toBeVisible();
}

test('an attached file belongs to its question unless kept for the next ones', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-files').setInputFiles({ name: 'my-sites.csv', mimeType: 'text/csv', buffer: Buffer.from(CSV) });
  await expect(page.getByTestId('file-preview')).toHaveCount(1);
  const keep = page.getByTestId('ask-attach-keep');
  await expect(keep).not.toBeChecked();
  await shot(page, 'attachments-attached');

  await run(page, 'my sites');
  await expect(page.getByTestId('warnings')).toContainText(BAD);
  // Answered: the file went with it; still listed (and on the map), marked as used.
  await expect(page.getByTestId('file-preview')).toHaveAttribute('data-used', 'yes');
  await expect(page.getByTestId('file-used')).toContainText('Sent with «my sites»; not sent with the next question.');
  await expect(page.getByTestId('map')).toHaveAttribute('data-upload-features', '2');
  await run(page, 'airports within 60 km of Lyon');
  await expect(page.getByTestId('ask-answer-body')).toBeVisible();
  await expect(page.getByTestId('results-panel')).not.toContainText(BAD);
  await shot(page, 'attachments-next-question');

  // Kept: it rides along with every next question.
  await keep.check();
  await expect(page.getByTestId('file-preview')).toHaveAttribute('data-used', 'no');
  await run(page, 'my sites');
  await expect(page.getByTestId('warnings')).toContainText(BAD);
  await run(page, 'airports within 60 km of Lyon');
  await expect(page.getByTestId('warnings')).toContainText(BAD);
  await expect(page.getByTestId('file-preview')).toHaveAttribute('data-used', 'no');
  await expect(keep).toBeChecked();
  await shot(page, 'attachments-kept');
});
