import { expect, test } from './fixtures';
import { rpcCall } from './rpc';
import { openApp, shot } from './workspace-helpers';

test('"long" with no coordinates after it ("a long runway") is refused by name with an offer to run without it', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  await page.getByTestId('tab-ask').click();
  await page.getByTestId('ask-query').fill('airports with a long runway within 50 km of Lyon');
  await page.getByTestId('ask-run').click();
  const offer = page.getByTestId('refusal-rerun');
  await expect(offer).toHaveText('Run without ‘long runway’', { timeout: 30_000 });
  await expect(page.getByTestId('refusal-unread')).toContainText('“long runway”');
  await expect(page.getByTestId('refusal-rest')).toHaveText('asks “airports within 50 km of Lyon, France”');
  await shot(page, 'ask-offer-long-runway');
  await offer.click();
  await expect(page.getByTestId('ask-count')).toBeVisible({ timeout: 30_000 });
  await expect(page.getByTestId('ask-query')).toHaveValue('airports within 50 km of Lyon, France');
  await expect(offer).toHaveCount(0);
});

test('a question queued on a remote profile and answered by the bundled service says so', async ({ page, host }) => {
  await openApp(page, host.launchUrl);
  const remote = await rpcCall<{ id: string; label: string }>(page, 'profiles.save', { label: 'Field office', baseUrl: 'http://127.0.0.1:9/', searchBaseUrl: 'http://127.0.0.1:9/search' });
  await rpcCall(page, 'profiles.select', { id: remote.id });
  const queued = await rpcCall<{ id: number; profileId: string; status: string }>(page, 'queue.add', { request: { query: 'airports within 40 km of Lyon' } });
  expect(queued.profileId).toBe(remote.id);
  await page.getByTestId('tab-ask').click();
  // Back on the bundled service, the question runs there.
  await rpcCall(page, 'profiles.select', { id: 'local' });
  const notice = page.getByTestId('queue-notice');
  await expect(notice).toContainText('was asked on Field office and answered by', { timeout: 30_000 });
  await expect(notice.getByTestId('queue-answered-on')).toHaveText('Local (bundled)');
  await shot(page, 'ask-queue-answered-elsewhere');
  const list = await rpcCall<{ items: { profileId: string; answeredOn: string | null }[] }>(page, 'queue.list', {});
  expect(list.items[0]).toMatchObject({ profileId: remote.id, answeredOn: 'local' });
  // The host is shared by a worker's specs: the queue and the profiles are left as found.
  await rpcCall(page, 'queue.drop', { id: queued.id });
  await rpcCall(page, 'profiles.delete', { id: remote.id });
});
