import { Result } from 'antd'
import { useTranslation } from 'react-i18next'

/** An honest placeholder for a menu page that a later issue builds, titled with the menu name. */
export function NotAvailable({ name }: { name: string }) {
  const { t } = useTranslation()
  return (
    <Result
      data-testid="page-not-available"
      status="info"
      title={name}
      subTitle={
        <>
          <div>{t('page.notAvailable')}</div>
          <div>{t('page.notAvailableNote', { name })}</div>
        </>
      }
    />
  )
}
