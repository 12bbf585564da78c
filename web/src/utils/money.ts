/**
 * Amounts of money (revenue, the electricity bill) with their currency, in the console's
 * language: ¥1,234.56 in Chinese for CNY, CN¥1,234.56 in English (Intl's own symbols), always two
 * decimals as the server rounds them. A missing amount is "--", never ¥0.00.
 */
import { EMPTY } from './units'

/** The hub's default (the tenant's report setting when none is saved). */
export const DEFAULT_CURRENCY = 'CNY'

const localeOf = (language: string): string => (language.startsWith('en') ? 'en-US' : 'zh-CN')

/** `amount` in `currency` for `language` (`zh` / `en`); an unknown code is written before it. */
export function formatMoney(
  amount: number | null | undefined,
  currency: string = DEFAULT_CURRENCY,
  language = 'zh',
): string {
  if (typeof amount !== 'number' || !Number.isFinite(amount)) return EMPTY
  try {
    const text = new Intl.NumberFormat(localeOf(language), {
      style: 'currency',
      currency,
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    }).format(amount)
    // -0.00 after rounding a tiny negative is still nothing.
    return text.replace(/^-(?=\D*0\.00$)/, '')
  } catch {
    // Not an ISO 4217 code Intl knows: the code, then the number.
    const number = amount.toLocaleString(localeOf(language), {
      minimumFractionDigits: 2,
      maximumFractionDigits: 2,
    })
    return `${currency} ${number}`
  }
}
