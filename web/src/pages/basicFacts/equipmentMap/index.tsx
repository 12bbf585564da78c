import { Card, Typography } from 'antd'
import { useTranslation } from 'react-i18next'

/** Home (/basicFacts/equipmentMap). The station map view arrives with a later issue. */
export default function EquipmentMap() {
  const { t } = useTranslation()
  return (
    <Card title={t('route.home')}>
      <Typography.Paragraph>{t('home.mapLater')}</Typography.Paragraph>
    </Card>
  )
}
