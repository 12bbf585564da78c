import { Button, Result } from 'antd'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router-dom'

/** /forget: password recovery arrives with a later issue. */
export default function Forget() {
  const { t } = useTranslation()
  return (
    <Result
      status="info"
      title={t('route.forget')}
      subTitle={t('forget.note')}
      extra={
        <Link to="/login">
          <Button type="primary">{t('forget.backToLogin')}</Button>
        </Link>
      }
    />
  )
}
