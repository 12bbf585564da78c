import { Button, Result } from 'antd'
import { useTranslation } from 'react-i18next'

/** Shown when a route fails to render or its chunk fails to load. */
export default function RouteError() {
  const { t } = useTranslation()
  return (
    <Result
      status="500"
      title="500"
      subTitle={t('error.serverError')}
      extra={
        <Button type="primary" onClick={() => window.location.assign('/')}>
          {t('error.backHome')}
        </Button>
      }
    />
  )
}
