/** Query keys and queries of the sign-in screen (captcha, tenant of the site address). */
import { queryOptions } from '@tanstack/react-query'
import { formSeed } from '../queryClient'
import { getCaptcha, getTenantByDomain } from './index'

export const authKeys = {
  captcha: ['auth', 'captcha'] as const,
  tenantByDomain: ['auth', 'tenantByDomain'] as const,
}

/**
 * The sign-in captcha (`oauth/captcha`). A captcha answers one attempt, so nothing is kept: it is
 * fetched each time the sign-in form opens (also when an earlier one is still cached), never
 * refetched by itself under the user's typing (no focus or reconnect refetch), and again when
 * asked (a click on the image, a failed attempt: `refetch` or an invalidation of the key).
 */
export const captchaQuery = () =>
  queryOptions({
    queryKey: authKeys.captcha,
    queryFn: getCaptcha,
    ...formSeed,
    refetchOnMount: 'always',
  })

/**
 * The tenant the site address names (`tenant/info?domain=`), null when it names none; asked each
 * time the sign-in form opens. A failure is not toasted: the form then asks for the tenant.
 */
export const tenantByDomainQuery = (domain: string) =>
  queryOptions({
    queryKey: [...authKeys.tenantByDomain, domain],
    queryFn: () => getTenantByDomain(domain),
    ...formSeed,
    meta: { ownErrorState: true },
  })
